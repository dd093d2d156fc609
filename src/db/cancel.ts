import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import { poolAcquire, poolRole, secondsSince } from '../metrics/metrics.js';

/**
 * The request whose work is running, for the database layer: a statement started on the driver's
 * pool while serving a request is cancelled on the server when that request's signal aborts
 * (deadline passed, client gone, database outage declared). Set per request by src/http/deadline.ts.
 */
const workScope = new AsyncLocalStorage<AbortSignal>();

export function runWithWorkSignal<T>(signal: AbortSignal, fn: () => T): T {
  return workScope.run(signal, fn);
}

/** The signal of the request being served here, or undefined outside a request (jobs, CLIs). */
export function workSignal(): AbortSignal | undefined {
  return workScope.getStore();
}

/** Each pooled connection's server process, learnt when the pool opens it. */
const backends = new WeakMap<object, number>();

/**
 * node-postgres's `onConnect` pool option for a pool whose statements `cancellable` cancels: learns
 * a new connection's server process (`pg_backend_pid()`). The pool awaits it before handing the
 * connection out, so no statement of the caller's ever waits behind it on the same connection
 * (node-postgres deprecates that queue). A connection whose process could not be learnt is not
 * cancelled: its statement still ends at `statement_timeout`.
 */
export async function learnBackend(client: pg.ClientBase): Promise<void> {
  try {
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    backends.set(client, rows[0].pid);
  } catch {
    // The connection's first real statement meets the same failure and reports it.
  }
}

/** The server process of a connection `learnBackend` has seen, or undefined. */
export function backendOf(client: object): number | undefined {
  return backends.get(client);
}

/**
 * Runs `work` on one connection of `pool`; when `signal` aborts before `work` settles, the statement
 * running on that connection is cancelled on the server with `pg_cancel_backend`, sent on a
 * connection of its own (so a full pool cannot hold the cancel back). Only a pool opened with
 * `onConnect: learnBackend` knows its connections' processes; on another pool the statement still
 * ends at `statement_timeout`. The connection goes back to the pool, or is discarded when `work` threw.
 */
export async function cancellable<T>(
  pool: pg.Pool,
  signal: AbortSignal | undefined,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const waiting = performance.now();
  const client = await pool.connect();
  poolAcquire.observe({ pool: poolRole(pool) }, secondsSince(waiting));
  let running = true;
  const cancel = () => {
    const pid = backendOf(client);
    if (pid === undefined || !running) return;
    void (async () => {
      const control = new pg.Client({ ...pool.options, statement_timeout: undefined, query_timeout: 5000 });
      control.on('error', () => undefined);
      try {
        await control.connect();
        if (running) await control.query('select pg_cancel_backend($1)', [pid]);
      } catch {
        // Cancelling is best effort: the statement still ends at its statement_timeout.
      } finally {
        void control.end().catch(() => undefined);
      }
    })();
  };
  signal?.addEventListener('abort', cancel, { once: true });
  let failed: Error | undefined;
  try {
    return await work(client);
  } catch (err) {
    failed = err instanceof Error ? err : new Error(String(err));
    throw err;
  } finally {
    running = false;
    signal?.removeEventListener('abort', cancel);
    client.release(failed);
  }
}
