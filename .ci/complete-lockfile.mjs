// The registry reachable here is a partial mirror: it lacks other platforms' optional binaries
// (@swc/core-darwin-arm64, ...), so `npm install` writes a lockfile without their entries and
// `npm ci` then refuses it as out of sync. This adds the missing optional entries, with the
// os/cpu/libc their names state, so npm ci accepts the lockfile and skips them on this platform.
// Run after changing dependencies: node .ci/complete-lockfile.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const packages = lock.packages;

const OS = [
  'darwin',
  'linux',
  'win32',
  'android',
  'freebsd',
  'openbsd',
  'netbsd',
  'sunos',
  'aix',
  'openharmony',
];
const CPU = [
  'arm64',
  'x64',
  'ia32',
  'arm',
  'ppc64',
  'ppc64le',
  's390x',
  'riscv64',
  'loong64',
  'wasm32',
  'mips64el',
];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = OS.find((o) => parts.includes(o));
  const cpu = CPU.find((c) => parts.includes(c));
  const libc = parts.some((p) => p.startsWith('musl'))
    ? 'musl'
    : parts.some((p) => p.startsWith('gnu'))
      ? 'glibc'
      : undefined;
  return { os, cpu, libc };
}

let added = 0;
for (const [location, meta] of Object.entries(packages)) {
  for (const [dep, spec] of Object.entries(meta.optionalDependencies ?? {})) {
    // Resolve like node: next to the dependent, then up the tree.
    const segments = location ? location.split('node_modules/').filter(Boolean) : [];
    let found = false;
    for (let i = segments.length; i >= 0 && !found; i--) {
      const base = segments
        .slice(0, i)
        .map((s) => `node_modules/${s.replace(/\/$/, '')}/`)
        .join('');
      found = `${base}node_modules/${dep}` in packages;
    }
    if (found) continue;
    const { os, cpu, libc } = platformOf(dep);
    if (!os && !cpu) continue;
    const entry = { version: spec.replace(/^[\^~=]/, ''), optional: true };
    if (os) entry.os = [os];
    if (cpu) entry.cpu = [cpu];
    if (libc) entry.libc = [libc];
    packages[`node_modules/${dep}`] = entry;
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync(path, JSON.stringify(lock, null, 2) + '\n');
console.log(`added ${added} optional platform entries to package-lock.json`);
