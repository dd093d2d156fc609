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
