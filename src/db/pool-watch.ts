import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import type { DatabaseAvailability } from './availability.js';

/**
 * The request whose work is running, for the database layer: a query started while serving a
 * request is cancelled on the server when that request's signal aborts (deadline passed, client
 * gone). Set per request by src/http/deadline.ts.
 */
const workScope = new AsyncLocalStorage<AbortSignal>();

export function runWithWorkSignal<T>(signal: AbortSignal, fn: () => T): T {
  return workScope.run(signal, fn);
}

/** No pooled connection became free in time: this node is overloaded (not a database outage). */
export class PoolAcquireTimeout extends Error {
  readonly code = 'POOL_ACQUIRE_TIMEOUT';
  constructor(ms: number) {
    super(`No database connection became free within ${ms} ms (DB_ACQUIRE_TIMEOUT_MS)`);
    this.name = 'PoolAcquireTimeout';
  }
}

export interface PoolWatchOptions {
  availability: DatabaseAvailability;
  /** How long a query may wait for a pooled connection. */
  acquireTimeoutMs: number;
  /** The server ends a statement after this long (`statement_timeout`); 0 for none. */
  statementTimeoutMs: number;
}

/** The statement deadline each watched pool gives a request's connections. */
const requestBounds = new WeakMap<object, number>();

/**
 * The `statement_timeout` a statement that `pool` runs now is under, in ms: the pool's
 * DB_STATEMENT_TIMEOUT_MS while serving a request (src/http/deadline.ts), else 0 (none: background
 * work, an unwatched pool such as a replica's or PGlite's). A caller whose statement needs exactly
 * this deadline can rely on it instead of setting its own in a transaction (src/search).
 */
export function statementBound(pool: object): number {
  return workScope.getStore() ? (requestBounds.get(pool) ?? 0) : 0;
}

type Callback = (err: Error | null, res?: unknown) => void;
type QueryFn = (this: pg.PoolClient, ...args: unknown[]) => unknown;
interface WireClient {
  host: string;
  port: number;
  processID: number | null;
  secretKey: number | null;
}

/**
 * Sends PostgreSQL's out-of-band CancelRequest for whatever `client` is running (the protocol's
 * own cancel: a fresh socket, no pooled connection needed, so it works when the pool is full).
 */
function sendCancel(client: pg.PoolClient): void {
  const target = client as unknown as WireClient;
  if (target.processID === null || target.secretKey === null) return;
  const canceller = new pg.Client({ host: target.host, port: target.port });
  const con = (
    canceller as unknown as {
      connection: {
        on(e: string, f: (...a: unknown[]) => void): void;
        once(e: string, f: () => void): void;
        connect(portOrPath: number | string, host?: string): void;
        cancel(pid: number, key: number): void;
        stream: { destroy(): void };
      };
    }
  ).connection;
  const giveUp = setTimeout(() => con.stream.destroy(), 2000);
  giveUp.unref();
  con.on('error', () => undefined);
  con.once('end', () => clearTimeout(giveUp));
  con.once('connect', () => con.cancel(target.processID!, target.secretKey!));
  if (target.host.startsWith('/')) con.connect(`${target.host}/.s.PGSQL.${target.port}`);
  else con.connect(target.port, target.host);
}

/**
 * Watches the ORM's node-postgres pool, the one place every query of the service passes:
 * - waiting for a connection is bounded by `acquireTimeoutMs` (a busy pool is this node's
 *   overload: that request gets 503, nothing else changes);
 * - every connection gets `statement_timeout` on first use, and every query a client-side read
 *   timeout a little longer, so a frozen server cannot hold a request forever; a connection whose
 *   server stopped answering is discarded, not returned to the pool;
 * - a query running for a request whose signal aborts is cancelled on the server;
 * - connection failures and successes tell `availability` when the database goes and comes back.
 */
export function watchPool(pool: pg.Pool, opts: PoolWatchOptions): void {
  const { availability, acquireTimeoutMs, statementTimeoutMs } = opts;
  const queryTimeoutMs = statementTimeoutMs > 0 ? statementTimeoutMs + 2000 : 0;
  const watched = new WeakSet<pg.PoolClient>();
  const broken = new WeakSet<pg.PoolClient>();
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  requestBounds.set(pool, statementTimeoutMs);

  pool.on('error', (err) => availability.noteFailure(err));

  function watchClient(client: pg.PoolClient): void {
    if (watched.has(client)) return;
    watched.add(client);
    const query = (client as unknown as { query: QueryFn }).query;
    (client as unknown as { query: QueryFn }).query = function (first, second, third) {
      // Cursors and other submittables carry their own protocol handling: passed through untouched.
      if (
        first &&
        typeof first === 'object' &&
        typeof (first as { submit?: unknown }).submit === 'function'
      ) {
        return query.call(this, first, second, third);
      }
      const config: Record<string, unknown> =
        typeof first === 'string' ? { text: first } : { ...(first as Record<string, unknown>) };
      let callback: Callback | undefined;
      if (typeof second === 'function') callback = second as Callback;
      else {
        if (second !== undefined) config.values = second;
        if (typeof third === 'function') callback = third as Callback;
      }
      const signal = workScope.getStore();
      if (signal && queryTimeoutMs && config.query_timeout === undefined)
        config.query_timeout = queryTimeoutMs;
      let settled = false;
      const onAbort = () => {
        if (!settled) sendCancel(client);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const settle = (err: unknown) => {
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        if (!err) return availability.noteSuccess();
        // A server that stopped answering mid-query leaves the connection unusable.
        if (availability.noteFailure(err) === 'unavailable') broken.add(client);
      };
      if (callback) {
        const cb = callback;
        return query.call(this, config, (err: Error | null, res: unknown) => {
          settle(err);
          cb(err, res);
        });
      }
      return (query.call(this, config) as Promise<unknown>).then(
        (res) => {
          settle(null);
          return res;
        },
        (err: unknown) => {
          settle(err);
          throw err;
        },
      );
    };
  }

  /**
   * Requests' statements are bounded; background work (jobs, reconciliation, the limiter's sweep,
   * migrations) is not: a connection gets the bound its user needs, set only when it changes.
   */
  const boundOf = new WeakMap<pg.PoolClient, number>();
  async function applyStatementTimeout(client: pg.PoolClient): Promise<void> {
    const wanted = workScope.getStore() ? statementTimeoutMs : 0;
    if ((boundOf.get(client) ?? 0) === wanted) return;
    await client.query(`set statement_timeout = ${Math.floor(wanted)}`);
    boundOf.set(client, wanted);
  }

  function guardRelease(client: pg.PoolClient): void {
    const release = client.release.bind(client);
    client.release = (err?: Error | boolean) =>
      release(
        err ??
          (broken.has(client) ? new Error('the database stopped answering on this connection') : undefined),
      );
  }

  async function acquire(): Promise<pg.PoolClient> {
    const pending = connect();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new PoolAcquireTimeout(acquireTimeoutMs)), acquireTimeoutMs);
    });
    let client: pg.PoolClient;
    try {
      client = await Promise.race([pending, timeout]);
    } catch (err) {
      if (err instanceof PoolAcquireTimeout) {
        // The connection still arrives (or fails) later: hand it straight back, or learn from its failure.
        pending.then(
          (late) => late.release(),
          (late: unknown) => availability.noteFailure(late),
        );
      } else availability.noteFailure(err);
      throw err;
    } finally {
      clearTimeout(timer);
    }
    guardRelease(client);
    watchClient(client);
    try {
      await applyStatementTimeout(client);
    } catch (err) {
      client.release(err instanceof Error ? err : new Error(String(err)));
      throw err;
    }
    return client;
  }

  (pool as unknown as { connect: unknown }).connect = (
    callback?: (err: Error | undefined, client?: pg.PoolClient, done?: (err?: Error) => void) => void,
  ) => {
    const result = acquire();
    if (!callback) return result;
    result.then(
      (client) => callback(undefined, client, (err?: Error) => client.release(err)),
      (err: Error) => callback(err),
    );
    return undefined;
  };
}
