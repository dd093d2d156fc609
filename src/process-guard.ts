/**
 * Last-resort handlers for a failure nothing else caught. Every dependency call is meant to be
 * awaited and handled where it is made; these only make sure a miss is logged with its context and
 * never leaves the process half-alive:
 * - an unhandled promise rejection is logged (with the promise's error and stack) and the process
 *   keeps serving: a rejected promise has unwound its own work and holds no broken state;
 * - an uncaught exception may have left any state half-updated, so it is logged as fatal and the
 *   process shuts down cleanly (stop accepting, finish in-flight requests, close pools) within a
 *   bound, then exits non-zero for the supervisor to restart it.
 */
export interface GuardLog {
  error(obj: object, msg: string): void;
  fatal(obj: object, msg: string): void;
}

export interface ProcessGuardOptions {
  log: GuardLog;
  /** The process's role in the logs (`api`, `worker`). */
  role: string;
  /** Graceful shutdown after an uncaught exception. */
  shutdown: () => Promise<void>;
  /** How long the shutdown may take before the process exits anyway. */
  shutdownTimeoutMs?: number;
  exit?: (code: number) => void;
}

export function installProcessGuards(opts: ProcessGuardOptions): () => void {
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  let exiting = false;
  const onRejection = (reason: unknown) => {
    opts.log.error(
      { err: reason, role: opts.role, kind: 'unhandledRejection' },
      'unhandled promise rejection (a bug: this call should have been awaited and handled); the process keeps serving',
    );
  };
  const onException = (err: Error, origin: string) => {
    opts.log.fatal(
      { err, role: opts.role, kind: origin },
      'uncaught exception; shutting down cleanly so the supervisor restarts a whole process',
    );
    if (exiting) return;
    exiting = true;
    const force = setTimeout(() => exit(1), opts.shutdownTimeoutMs ?? 10_000);
    force.unref();
    opts
      .shutdown()
      .catch((shutdownErr: unknown) => opts.log.error({ err: shutdownErr }, 'shutdown after a crash failed'))
      .finally(() => {
        clearTimeout(force);
        exit(1);
      });
  };
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return () => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  };
}
