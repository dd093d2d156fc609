import { spawn } from 'node:child_process';
import { getPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../../src/config.js';
import { EXTRACTOR_NICENESS, spawnExtractor } from '../../../src/ingestion/extract.js';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}

describe('extractor processes', () => {
  it('run at a lower CPU priority than request handling', async () => {
    const child = spawnExtractor(256);
    try {
      expect(EXTRACTOR_NICENESS).toBe(10);
      // Niceness is only ever raised without privileges: never below the parent's own.
      expect(getPriority(child.pid)).toBe(Math.max(EXTRACTOR_NICENESS, getPriority(process.pid)));
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('exit as soon as the process that started them is killed', async () => {
    const extract = fileURLToPath(new URL('../../../src/ingestion/extract.ts', import.meta.url));
    const hooks = fileURLToPath(new URL('../../../src/ingestion/source-hooks.ts', import.meta.url));
    // A parent that starts one extractor, prints its pid, and waits to be killed.
    const script = `const { spawnExtractor } = await import(${JSON.stringify(extract)});
      const child = spawnExtractor(256); console.log(child.pid); setInterval(() => {}, 1000);`;
    const parent = spawn(
      process.execPath,
      [
        '--experimental-transform-types',
        '--no-warnings',
        '--import',
        hooks,
        '--input-type=module',
        '-e',
        script,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const childPid = await new Promise<number>((resolve, reject) => {
      parent.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim())));
      parent.once('exit', () => reject(new Error('the parent exited before starting an extractor')));
    });
    expect(alive(childPid)).toBe(true);
    parent.kill('SIGKILL');
    // The extractor may still be starting: it notices within its first steps, before it loads
    // pdf.js and the OCR engine. `npm test` runs this file alone (TIMED_FILES in jest.config.js):
    // at its niceness, beside the rest of the suite, an extractor gets too small a share of the CPU
    // for its start to be timed.
    expect(await until(() => !alive(childPid), 5000)).toBe(true);
  });
});

describe('EXTRACTION_IN_API', () => {
  it('runs extraction in the API process by default', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).extractionInApi).toBe(true);
  });

  it('off leaves extraction to `npm run worker` processes; it needs a shared database', () => {
    const env = { NODE_ENV: 'test', EXTRACTION_IN_API: 'off' } as const;
    expect(loadConfig({ ...env, DATABASE_URL: 'postgres://db/pds' }).extractionInApi).toBe(false);
    expect(() => loadConfig(env)).toThrow(/EXTRACTION_IN_API: off needs DATABASE_URL/);
  });
});
