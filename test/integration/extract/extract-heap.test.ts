import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractorHeapFlags, memoryLimitedNode } from '../../../src/ingestion/extract.js';

/**
 * An extractor's V8 heap settings (extractorHeapFlags) must let V8 collect before the operating
 * system's memory limit (RLIMIT_DATA, which V8 knows nothing of) refuses it memory: a process that
 * keeps a fair share of the limit live while it makes garbage, as pdf.js does, must run to its end
 * under them. The last case shows the check can fail: the same growth with V8's cap at the whole
 * limit crashes that process.
 */
const CHURN = `
const [live, total] = process.argv.slice(2).map(Number);
const slots = new Array(live).fill(null);
for (let n = 0; n < total; n++) {
  const objects = new Array(10000);
  for (let k = 0; k < 10000; k++) objects[k] = { k, s: 'x' + k };
  slots[n % live] = { objects, bytes: new Uint8Array(64 * 1024) };
}
process.stdout.write('done');
`;

// A file, not `node -e`: code evaluated that way keeps more garbage around, and crashed at 256 MB
// (and at 512 MB with 55% live) under the extractors' earlier settings too (cap at the whole limit).
const dir = mkdtempSync(join(tmpdir(), 'pds-heap-'));
const script = join(dir, 'churn.js');
writeFileSync(script, CHURN);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Runs CHURN as an extractor runs (memoryLimitedNode: under `ulimit -d limitMb`, with `heapFlags`):
 * about 1 MB of objects a step, `liveMb` of them kept.
 */
function churn(
  limitMb: number,
  liveMb: number,
  heapFlags?: string[],
): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', memoryLimitedNode(limitMb, [script, String(liveMb), '1000'], heapFlags), {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (out += text));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, out }));
  });
}

describe("extractors' V8 heap settings under the memory limit", () => {
  it.each([
    [256, 76],
    [256, 140],
    [512, 153],
    [512, 281],
  ])(
    'a process limited to %i MB keeping %i MB live runs to its end',
    async (limitMb, liveMb) => {
      const { code, out } = await churn(limitMb, liveMb);
      expect({ code, out }).toEqual({ code: 0, out: 'done' });
    },
    60_000,
  );

  // With 55% of the limit live (the second case above), not 30%, and up to three runs: whether V8
  // collects in time is a race with the scheduler for its concurrent marker. At 30% such a process
  // ran to its end in about one run of five on a loaded machine; at 55% it died in 15 of 15 runs
  // beside three busy processes, yet once ran to its end in a full CI run (the suite's other
  // workers). So the control passes when one of up to three runs dies: that is enough to show the
  // system's limit bites when V8's cap does not keep the heap under it.
  it('the same growth with the cap at the whole limit is refused memory by the system and dies', async () => {
    const flags = extractorHeapFlags(256).map((f) =>
      f.startsWith('--max-old-space-size=') ? '--max-old-space-size=256' : f,
    );
    const died = ({ code, signal, out }: Awaited<ReturnType<typeof churn>>) =>
      out === '' && (code !== 0 || signal !== null);
    let deaths = 0;
    for (let attempt = 0; attempt < 3 && deaths === 0; attempt++) {
      if (died(await churn(256, 140, flags))) deaths++;
    }
    expect(deaths).toBe(1);
  }, 120_000);
});
