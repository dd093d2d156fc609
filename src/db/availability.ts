import { AppError } from '../errors/catalogue.js';
import { ClientGone, DeadlineExceeded } from '../errors/aborted.js';

/**
 * What a database failure means for the request that met it:
 * - `unavailable`: the database cannot be reached or is going away (connection refused or reset,
 *   admin shutdown, a server that stopped answering). This marks an outage.
 * - `busy`: the database is up but this request could not get its turn: the pool had no free
 *   connection within DB_ACQUIRE_TIMEOUT_MS (this node is overloaded), or the statement ran past
 *   DB_STATEMENT_TIMEOUT_MS or was cancelled. The request gets 503, but no outage is declared.
 */
export type DbFailure = 'unavailable' | 'busy';

/** Error codes of sockets and of PostgreSQL (SQLSTATE) that mean "the database is not there". */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, recovering)
]);
const BUSY_CODES = new Set([
  '57014', // query_canceled: statement_timeout, or cancelled because its request ended
  '53300', // too_many_connections
  '55P03', // lock_not_available (lock_timeout)
  'POOL_ACQUIRE_TIMEOUT', // src/db/pool-watch.ts: no pooled connection free in time
]);
/** node-postgres and pg-pool report these without a code. */
const UNAVAILABLE_MESSAGES = [
  /Connection terminated/i, // unexpectedly, or "due to connection timeout" (a server that accepts but never answers)
  /Query read timeout/i, // the server stopped answering mid-query (frozen)
  /not queryable/i, // a client whose connection already broke
  /connection (is )?(closed|lost|ended)/i,
  /server closed the connection/i,
];
const BUSY_MESSAGES = [/timeout exceeded when trying to connect/i]; // pg-pool: no free connection in time

function* causes(err: unknown): Generator<unknown> {
  const seen = new Set<unknown>();
  const queue = [err];
  while (queue.length && seen.size < 10) {
    const e = queue.shift();
    if (!e || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    yield e;
    const x = e as { cause?: unknown; originalError?: unknown; errors?: unknown };
    queue.push(x.cause, x.originalError);
    if (Array.isArray(x.errors)) queue.push(...(x.errors as unknown[]));
  }
}

/** Classifies an error (following `cause` chains, ORM wrappers and aggregate errors); null when it is not a database failure. */
export function classifyDbError(err: unknown): DbFailure | null {
  let busy = false;
  for (const e of causes(err)) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    const text = typeof message === 'string' ? message : '';
    if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08')))
      return 'unavailable';
    if (UNAVAILABLE_MESSAGES.some((re) => re.test(text))) return 'unavailable';
    if ((typeof code === 'string' && BUSY_CODES.has(code)) || BUSY_MESSAGES.some((re) => re.test(text)))
      busy = true;
  }
  return busy ? 'busy' : null;
}

/**
 * The catalogued 503 for an error that means "not now, retry": the database unreachable or busy,
 * the request's deadline passed or its client left. Null for anything else (a real bug stays a 500).
 */
export function unavailableError(err: unknown, retryAfterSeconds: number): AppError | null {
  if (err instanceof AppError) return err.code === 'SERVICE_UNAVAILABLE' ? err : null;
  if (err instanceof DeadlineExceeded || err instanceof ClientGone) {
    return new AppError('SERVICE_UNAVAILABLE', `${err.message}: retry in ${retryAfterSeconds} seconds`, {
      retryAfterSeconds,
    });
  }
  const failure = classifyDbError(err);
  if (!failure) return null;
  const message =
    failure === 'unavailable'
      ? `The database is unavailable: retry in ${retryAfterSeconds} seconds`
      : `The server is busy: retry in ${retryAfterSeconds} seconds`;
  return new AppError('SERVICE_UNAVAILABLE', message, { retryAfterSeconds });
}

export interface AvailabilityLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export type DatabaseHealth = { state: 'up' } | { state: 'down'; since: number; reason: string };

/**
 * Whether this process can reach its database, learnt from the queries it runs (src/db/pool-watch.ts):
 * the first connection failure logs one line and marks the outage, the next success logs its end.
 * A busy pool or a statement timeout is overload, not an outage, and changes nothing here.
 */
export class DatabaseAvailability {
  private health: DatabaseHealth = { state: 'up' };

  constructor(private readonly log: AvailabilityLog) {}

  current(): DatabaseHealth {
    return this.health;
  }

  noteFailure(err: unknown): DbFailure | null {
    const failure = classifyDbError(err);
    if (failure !== 'unavailable') return failure;
    if (this.health.state === 'up') {
      const reason = err instanceof Error ? err.message : String(err);
      this.health = { state: 'down', since: Date.now(), reason };
      this.log.warn(
        { err },
        'database unavailable: requests that need it are answered 503 with Retry-After until it is back',
      );
    }
    return failure;
  }

  noteSuccess(): void {
    if (this.health.state === 'up') return;
    const downMs = Date.now() - this.health.since;
    this.health = { state: 'up' };
    this.log.info({ downMs }, 'database available again');
  }
}
