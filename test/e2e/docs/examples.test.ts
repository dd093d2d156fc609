import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { seedDemo, seedDemoDocuments, type DemoCredentials } from '../../../src/demo/seed.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { makePdf } from '../../support/pdf.js';

/**
 * Every shell example in README.md and docs/ runs here, as a reader would paste it, against a
 * server with the demo data and a few demo documents ingested. Placeholders such as `pds_key_…`
 * are filled with the demo credentials the start would print. A block that must not run (it
 * installs, starts or benchmarks a deployment) says why in a `<!-- example not run: … -->` line
 * above it (a blank line between them is allowed). curl is wrapped so every call's status and answer are checked: an HTTP error, a
 * GraphQL error, a JSON-RPC error or a tool error fails the example.
 */
const ROOT = resolve(import.meta.dirname, '../../..');
const run = promisify(execFile);

interface Example {
  page: string;
  line: number;
  code: string;
  skipped: string | null;
}

function examples(): Example[] {
  const pages = [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  return pages.flatMap((page) => {
    const lines = readFileSync(join(ROOT, page), 'utf8').split('\n');
    const found: Example[] = [];
    for (let i = 0; i < lines.length; i++) {
      if (!/^```(sh|bash|shell|console)\s*$/.test(lines[i])) continue;
      const end = lines.indexOf('```', i + 1);
      // The marker is the line above the block, or above the blank line Prettier puts between them.
      const above = lines[i - 1] === '' ? lines[i - 2] : lines[i - 1];
      const skipped = /^<!-- example not run: (.+) -->$/.exec(above ?? '')?.[1] ?? null;
      found.push({ page, line: i + 1, code: lines.slice(i + 1, end).join('\n'), skipped });
      i = end;
    }
    return found;
  });
}

/** What a reader substitutes for each placeholder (a `NAME=…` line in an example), from the demo's credentials. */
function placeholders(demo: DemoCredentials, operator: string): Record<string, string> {
  const pro = demo.teams.find((t) => t.plan === 'pro')!;
  return { TOKEN: pro.mcpToken, KEY: pro.apiKey!, PDS_ADMIN_TOKEN: operator };
}

const CURL_SHIM = `#!/usr/bin/env bash
# Runs the real curl, then records the call's status (from --write-out) and its answer.
set -o pipefail
/usr/bin/curl "$@" -w '%{stderr}@@status %{http_code}\\n' 2>>"$EXAMPLE_LOG.status" | tee -a "$EXAMPLE_LOG.body"
code=$?
printf '\\n@@end\\n' >>"$EXAMPLE_LOG.body"
exit $code
`;

/** Problems in the recorded answers: HTTP errors, GraphQL errors, JSON-RPC errors, tool errors. */
function problems(log: string): string[] {
  const found: string[] = [];
  const statuses = [...readFileSync(`${log}.status`, 'utf8').matchAll(/@@status (\d+)/g)].map((m) =>
    Number(m[1]),
  );
  if (!statuses.length) found.push('no HTTP call was made');
  for (const s of statuses) if (s === 0 || s >= 400) found.push(`HTTP ${s}`);
  for (const body of readFileSync(`${log}.body`, 'utf8').split('\n@@end\n')) {
    const jsonStart = body.indexOf('{');
    if (jsonStart < 0) continue;
    let answer: any;
    try {
      answer = JSON.parse(body.slice(jsonStart));
    } catch {
      continue; // not a JSON answer (headers with -i, an HTML page)
    }
    if (answer?.errors?.length) found.push(`GraphQL errors: ${JSON.stringify(answer.errors)}`);
    if (answer?.error) found.push(`JSON-RPC error: ${JSON.stringify(answer.error)}`);
    if (answer?.result?.isError) found.push(`tool error: ${JSON.stringify(answer.result.content)}`);
  }
  return found;
}

let t: TestApp;
let demo: DemoCredentials;
let work: string;
let corpus: string;
const all = examples();

beforeAll(async () => {
  t = await startTestApp();
  demo = await seedDemo(t.app);
  corpus = mkdtempSync(join(tmpdir(), 'pds-examples-corpus-'));
  await seedDemoDocuments(t.app, { projects: 2, dataDir: corpus });
  await t.app.deps.ingestion.queue.idle();
  work = mkdtempSync(join(tmpdir(), 'pds-examples-'));
  writeFileSync(join(work, 'curl'), CURL_SHIM);
  chmodSync(join(work, 'curl'), 0o755);
}, 180_000);

afterAll(async () => {
  await t?.close();
  rmSync(work, { recursive: true, force: true });
  rmSync(corpus, { recursive: true, force: true });
});

describe('documented examples', () => {
  it('finds the examples, and every one that does not run says why', () => {
    expect(all.filter((e) => !e.skipped).length).toBeGreaterThanOrEqual(8);
    for (const e of all.filter((x) => x.skipped)) expect(e.skipped!.length).toBeGreaterThan(10);
  });

  it.each(all.filter((e) => !e.skipped).map((e) => [`${e.page}:${e.line}`, e]))(
    '%s works against the service',
    async (_where, example) => {
      const values = placeholders(demo, t.operator);
      const unknown: string[] = [];
      const script = example.code
        .split('\n')
        .map((line) => {
          const m = /^(\w+)=\S*…\S*(\s+#.*)?$/.exec(line.trim());
          if (!m) return line;
          if (!(m[1] in values)) unknown.push(m[1]);
          return `# ${m[1]} is filled in by the test`;
        })
        .join('\n')
        .replaceAll('http://127.0.0.1:3000', t.url)
        .replaceAll('localhost:3000', t.url.replace('http://', ''));
      expect(unknown).toEqual([]);
      const dir = mkdtempSync(join(work, 'run-'));
      writeFileSync(join(dir, 'prices.pdf'), await makePdf(['Price list', 'Suite 1203: $899,900']));
      const log = join(dir, 'calls');
      writeFileSync(`${log}.status`, '');
      writeFileSync(`${log}.body`, '');
      const result = await run('bash', ['-eo', 'pipefail', '-c', script], {
        cwd: dir,
        env: { ...process.env, ...values, PATH: `${work}:${process.env.PATH}`, EXAMPLE_LOG: log },
        timeout: 60_000,
        maxBuffer: 16 * 1024 * 1024,
      }).catch((err: { code?: number; stderr?: string; stdout?: string }) => err);
      expect({
        example: example.code,
        exit: (result as { code?: number }).code ?? 0,
        problems: problems(log),
      }).toEqual({
        example: example.code,
        exit: 0,
        problems: [],
      });
    },
    90_000,
  );
});
