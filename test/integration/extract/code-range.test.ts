import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { memoryLimitedNode } from '../../../src/ingestion/extract.js';
import { codeRangeKb } from '../../../src/ingestion/memory-limit.js';

/**
 * An extractor's memory limit leaves room for V8's code ranges (src/ingestion/memory-limit.ts):
 * Node 24 charges each isolate's whole range against RLIMIT_DATA when it starts, so an extractor
 * limited as before could not start, nor start the OCR recognizer's worker thread.
 */
const MEMORY_LIMIT = fileURLToPath(new URL('../../../src/ingestion/memory-limit.ts', import.meta.url));

const PROBE = `
import { Worker } from 'node:worker_threads';
import { allowRecognizerThread } from ${JSON.stringify(MEMORY_LIMIT)};
process.stdout.write('started ');
if (process.argv[2] === 'allow') allowRecognizerThread();
const worker = new Worker("require('node:worker_threads').parentPort.postMessage('ready')", { eval: true });
worker.once('message', async (m) => {
  process.stdout.write('worker ' + m);
  await worker.terminate();
});
worker.once('error', (err) => {
  process.stdout.write('worker failed');
  process.exitCode = 3;
});
`;

const dir = mkdtempSync(join(tmpdir(), 'pds-code-range-'));
const script = join(dir, 'probe.mts');
writeFileSync(script, PROBE);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function probe(mode: 'allow' | 'keep'): Promise<{ code: number | null; signal: string | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', memoryLimitedNode(256, ['--no-warnings', script, mode]), {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (out += text));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, out }));
  });
}

/** Whether this runtime charges a code range large enough to matter (Node 24: 512 MB). */
const charged = codeRangeKb() > 64 * 1024;

describe("an extractor's memory limit and V8's code ranges", () => {
  it('measures the code range this runtime keeps writable', () => {
    expect(codeRangeKb()).toBeGreaterThan(0);
  });

  it('starts an extractor under a 256 MB limit, and its recognizer thread once it makes room', async () => {
    expect(await probe('allow')).toMatchObject({ code: 0, out: 'started worker ready' });
  }, 30_000);

  // Without the room: a runtime that charges a whole code range up front (Node 24) refuses Node its
  // start and the recognizer its thread; one that charges the range's pages as they are used (Node
  // 22) starts both. Either way the outcome is the one the measured range predicts.
  it('does not start under the limit alone where the whole range is charged', async () => {
    const { code, out } = await new Promise<{ code: number | null; out: string }>((resolve, reject) => {
      const child = spawn(
        '/bin/sh',
        ['-c', 'ulimit -d 262144 && exec "$0" -e "process.stdout.write(\'started\')"', process.execPath],
        {
          stdio: ['ignore', 'pipe', 'ignore'],
        },
      );
      let text = '';
      child.stdout.setEncoding('utf8').on('data', (t: string) => (text += t));
      child.on('error', reject);
      child.on('close', (exit) => resolve({ code: exit, out: text }));
    });
    expect({ started: out === 'started', ok: code === 0 }).toEqual({ started: !charged, ok: !charged });
  }, 30_000);

  it('refuses the recognizer thread when the room is not made, where the whole range is charged', async () => {
    const { out } = await probe('keep');
    expect(out.startsWith('started ')).toBe(true);
    expect(out.includes('worker ready')).toBe(!charged);
  }, 30_000);
});
