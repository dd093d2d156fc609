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

export interface ProcessGuards {
  onRejection: (reason: unknown) => void;
  onException: (err: Error, origin: string) => void;
}

/** The two handlers, not yet installed (tests call them directly). */
export function createProcessGuards(opts: ProcessGuardOptions): ProcessGuards {
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
  return { onRejection, onException };
}

/** Installs the handlers on this process; returns their removal. */
export function installProcessGuards(opts: ProcessGuardOptions): () => void {
  const { onRejection, onException } = createProcessGuards(opts);
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return () => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  };
}

/**
 * SIGTERM and SIGINT stop the process once: close (in-flight work finishes, pools close), then exit
 * 0, or 1 when closing fails or takes longer than 15 s. Repeated signals are ignored.
 */
export function stopOnSignals(
  log: GuardLog & { info(obj: object, msg: string): void },
  close: () => Promise<void>,
): void {
  let stopping = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      log.info({ signal }, 'shutting down');
      const force = setTimeout(() => process.exit(1), 15_000);
      force.unref();
      close()
        .then(() => process.exit(0))
        .catch((err: unknown) => {
          log.error({ err }, 'shutdown failed');
          process.exit(1);
        });
    });
  }
}
