import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/** Latency figures in milliseconds, rounded for the report. */
export interface Latency {
  n: number;
  p50: number;
  p95: number;
  /** autocannon reports p97.5, not p95: in-process figures carry it too, so ratios compare like with like. */
  p97_5: number;
  mean: number;
}

export const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

export function latency(samples: number[]): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
  const mean = sorted.reduce((s, x) => s + x, 0) / Math.max(1, sorted.length);
  return {
    n: sorted.length,
    p50: round(at(0.5)),
    p95: round(at(0.95)),
    p97_5: round(at(0.975)),
    mean: round(mean),
  };
}

/**
 * Of an odd count of rounds that each measured both sides of a ratio, the round whose ratio is the
 * median: its figures are reported together, so the ratio shown is the one its two sides give.
 */
export function medianRound<T>(rounds: T[], ratioOf: (round: T) => number): T {
  return [...rounds].sort((a, b) => ratioOf(a) - ratioOf(b))[Math.floor(rounds.length / 2)];
}

/** CPU milliseconds a load cost, by where they were spent on this machine. */
export interface CpuSplit {
  /** This process: under autocannon, the server alone. */
  server: number;
  /** Every PostgreSQL process on this machine (0 when the database is elsewhere, or without /proc). */
  postgres: number;
  /** This process's children that ended meanwhile: autocannon, which runs as one (0 without /proc). */
  loadGenerator: number;
}

/** Linux's fixed unit of the CPU times in /proc (USER_HZ). */
const TICKS_PER_SECOND = 100;

/** The fields of a /proc stat line after the command's closing parenthesis (the command may hold spaces). */
const statFields = (stat: string) => stat.slice(stat.lastIndexOf(')') + 2).split(' ');

/** Every process's CPU seconds so far (utime + stime), with its parent and command line; empty without /proc. */
export function processCpu(): { pid: number; parent: number; command: string; seconds: number }[] {
  if (!existsSync('/proc/stat')) return [];
  const processes = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    let command: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      command = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    // State is the 1st field here, ppid the 2nd, utime the 12th, stime the 13th.
    const fields = statFields(stat);
    const seconds = (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
    processes.push({ pid: Number(entry), parent: Number(fields[1]), command, seconds });
  }
  return processes;
}

/** CPU ms so far of PostgreSQL's processes on this machine and of this process's ended children. */
function procCpu(): { postgres: number; children: number } {
  if (!existsSync('/proc/self/stat')) return { postgres: 0, children: 0 };
  let postgres = 0;
  for (const p of processCpu()) if (p.command.startsWith('postgres')) postgres += p.seconds;
  // cutime and cstime: children that ended and were waited for.
  const self = statFields(readFileSync('/proc/self/stat', 'utf8'));
  const children = (Number(self[13]) + Number(self[14])) / TICKS_PER_SECOND;
  return { postgres: postgres * 1000, children: children * 1000 };
}

/**
 * CPU spent from now, by place: call the returned function for the milliseconds since. PostgreSQL's
 * share is of the processes alive at both readings (a backend that exits meanwhile is not counted;
 * the bench's pools keep theirs).
 */
export function cpuSince(): () => CpuSplit {
  const start = process.cpuUsage();
  const proc = procCpu();
  return () => {
    const { user, system } = process.cpuUsage(start);
    const now = procCpu();
    return {
      server: (user + system) / 1000,
      postgres: Math.max(0, now.postgres - proc.postgres),
      loadGenerator: now.children - proc.children,
    };
  };
}

/** A split divided by the requests it served, rounded for the report. */
export function perRequest(split: CpuSplit, requests: number): CpuSplit {
  const n = Math.max(1, requests);
  return {
    server: round(split.server / n, 3),
    postgres: round(split.postgres / n, 3),
    loadGenerator: round(split.loadGenerator / n, 3),
  };
}

export function ratio(a: number, b: number): number {
  return b === 0 ? 0 : round(a / b);
}

/**
 * Runs `fn` from `connections` concurrent loops for `durationMs` and returns every call's latency
 * and the completed calls per second: the in-process counterpart of an autocannon run.
 */
export async function closedLoop(
  fn: () => Promise<unknown>,
  connections: number,
  durationMs: number,
): Promise<{ latencies: number[]; perSecond: number }> {
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + durationMs;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        await fn();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return { latencies, perSecond: round((latencies.length * 1000) / (performance.now() - started), 1) };
}

/** A small deterministic PRNG (mulberry32) so generated datasets are the same in every run. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
