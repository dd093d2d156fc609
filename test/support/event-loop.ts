import { monitorEventLoopDelay } from 'node:perf_hooks';

/** Node ≥ 22.19: the CPU time of the calling thread alone (process.cpuUsage sums every thread). */
const threadCpuUsage = (process as unknown as { threadCpuUsage: () => NodeJS.CpuUsage }).threadCpuUsage;

/**
 * The event loop's longest stall, two ways: as perf_hooks measures it (wall clock, which on a
 * loaded shared CPU also counts time the process was not scheduled at all), and the part of each
 * stall the main thread spent on the CPU: its own blocking work (JS, its share of GC, parsing).
 */
export function stallMonitor(): { stop: () => { wallMs: number; ownMs: number } } {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  let ownMs = 0;
  let last = { at: performance.now(), cpu: threadCpuUsage() };
  const timer = setInterval(() => {
    const now = { at: performance.now(), cpu: threadCpuUsage() };
    const cpuMs = (now.cpu.user - last.cpu.user + now.cpu.system - last.cpu.system) / 1000;
    ownMs = Math.max(ownMs, Math.min(now.at - last.at - 10, cpuMs));
    last = now;
  }, 10);
  delay.enable();
  return {
    stop: () => {
      delay.disable();
      clearInterval(timer);
      return { wallMs: Math.round(delay.max / 1e5) / 10, ownMs: Math.round(ownMs) };
    },
  };
}
