import { createProcessGuards } from '../../src/process-guard.js';

function harness(shutdown: () => Promise<void>) {
  const records: { level: string; obj: Record<string, unknown>; msg: string }[] = [];
  const exits: number[] = [];
  const guards = createProcessGuards({
    log: {
      error: (obj, msg) => records.push({ level: 'error', obj: obj as Record<string, unknown>, msg }),
      fatal: (obj, msg) => records.push({ level: 'fatal', obj: obj as Record<string, unknown>, msg }),
    },
    role: 'api',
    shutdown,
    shutdownTimeoutMs: 200,
    exit: (code) => exits.push(code),
  });
  return { guards, records, exits };
}

describe('process guards', () => {
  it('logs an unhandled rejection with its error and context, and keeps the process', () => {
    const { guards, records, exits } = harness(() => Promise.resolve());
    const err = new Error('pg-boss complete failed');
    guards.onRejection(err);
    expect(records).toEqual([
      {
        level: 'error',
        obj: { err, role: 'api', kind: 'unhandledRejection' },
        msg: expect.stringMatching(/unhandled promise rejection/),
      },
    ]);
    expect(exits).toEqual([]);
  });

  it('shuts down cleanly and exits 1 after an uncaught exception, once', async () => {
    let closed = 0;
    const { guards, records, exits } = harness(async () => {
      closed++;
    });
    guards.onException(new Error('boom'), 'uncaughtException');
    guards.onException(new Error('again'), 'uncaughtException');
    await new Promise((r) => setTimeout(r, 20));
    expect(closed).toBe(1);
    expect(exits).toEqual([1]);
    expect(records.filter((r) => r.level === 'fatal')).toHaveLength(2);
  });

  it('exits even when the shutdown hangs', async () => {
    const { guards, exits } = harness(() => new Promise(() => undefined));
    guards.onException(new Error('boom'), 'uncaughtException');
    await new Promise((r) => setTimeout(r, 400));
    expect(exits).toEqual([1]);
  });
});
