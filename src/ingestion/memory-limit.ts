import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * An extractor's memory limit (RLIMIT_DATA, extract.ts) and V8's code ranges.
 *
 * Linux counts a private writable mapping against RLIMIT_DATA when it is made writable, whether or
 * not its pages are ever used. Node 22's V8 made its code range's pages writable as it filled them
 * (about 0.25 MB at start); Node 24's makes the whole range (512 MB on x64) readable, writable and
 * executable when an isolate starts. Under a 512 MB limit an extractor then died before it read a
 * byte ("Failed to reserve virtual memory for CodeRange") and every document failed as out of
 * memory. Each isolate has a code range of its own, and a worker thread is an isolate: the OCR
 * recognizer (tesseract.js) runs in one, which costs its first scanned page another range.
 *
 * So the soft limit is `maxMemoryMb` plus the extractor's own code range, and the hard limit has
 * room for one more: the extractor raises its soft limit to the hard one (allowRecognizerThread)
 * just before it starts the recognizer's worker. Either way the heap, buffers, WebAssembly memory
 * and malloc have the same `maxMemoryMb` on Node 22 and on Node 24.
 */

let codeRange: number | undefined;

/**
 * The address space, in KB, that V8 keeps writable for one isolate's generated code from its start:
 * the largest private read-write-execute mapping of this process (extractors run the same Node, so
 * theirs are the same size), or 0 where /proc cannot tell.
 */
export function codeRangeKb(): number {
  if (codeRange !== undefined) return codeRange;
  let largest = 0;
  try {
    for (const line of readFileSync('/proc/self/maps', 'utf8').split('\n')) {
      const [range, perms] = line.split(' ', 2);
      if (perms !== 'rwxp') continue;
      const [start, end] = range.split('-').map((hex) => BigInt(`0x${hex}`));
      largest = Math.max(largest, Number((end - start) / 1024n));
    }
  } catch {
    // No /proc (not Linux): RLIMIT_DATA is not the same limit there either.
  }
  return (codeRange = largest);
}

/** The soft and hard RLIMIT_DATA, in KB, of an extractor of `maxMemoryMb`. */
export function dataLimitsKb(maxMemoryMb: number): { soft: number; hard: number } {
  const soft = maxMemoryMb * 1024 + codeRangeKb();
  return { soft, hard: soft + codeRangeKb() };
}

/**
 * Raises this process's soft RLIMIT_DATA to its hard limit, the room left for a worker thread's code
 * range (see above). Node has no setrlimit, so util-linux's `prlimit` does it; where it cannot, the
 * limit stays, and a runtime that charges the worker's range refuses the worker its memory.
 */
export function allowRecognizerThread(): void {
  try {
    const line = /^Max data size\s+(\S+)\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    if (!line || line[1] === line[2]) return;
    execFileSync('prlimit', ['--pid', String(process.pid), `--data=${line[2]}:`], { stdio: 'ignore' });
  } catch {
    // Not Linux, or no prlimit: see above.
  }
}
