import pg from 'pg';
import { AppError } from '../errors/catalogue.js';
import { RequestEnded } from '../errors/aborted.js';

/**
 * What a database failure means for the request that met it:
 * - `unavailable`: the database cannot be reached or is going away (connection refused or reset,
 *   admin shutdown, a server that stopped answering). This marks an outage.
 * - `busy`: the database is up but this request could not get its turn: the pool had no free
 *   connection within DB_ACQUIRE_TIMEOUT_MS (this node is overloaded), or the statement ran past
 *   DB_STATEMENT_TIMEOUT_MS or was cancelled. The request gets 503, but no outage is suspected.
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
  if (err instanceof RequestEnded) {
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

/** Asks the database one question on a connection that no request holds; rejects when it cannot. */
export type DatabaseProbe = (timeoutMs: number) => Promise<void>;

export interface AvailabilityTiming {
  /** While up, how often the database is asked (a frozen server answers nothing and fails no request by itself). */
  heartbeatMs: number;
  /** While down, how often it is asked again: the first answer ends the outage. */
  retryMs: number;
  /** How long a probe may take before it counts as no answer. */
  probeTimeoutMs: number;
}

const DEFAULT_TIMING: AvailabilityTiming = { heartbeatMs: 1000, retryMs: 250, probeTimeoutMs: 2000 };

/**
 * Whether this process can reach its database. Only a probe declares an outage: a heartbeat while
 * up, and at once when a request met a failure that looks like one (`suspect`); so a single broken
 * connection costs nothing when the server still answers. While down, the probe is repeated and
 * its first answer ends the outage. One log line for each; `onDown` listeners hear of each outage
 * (the HTTP layer answers the requests still waiting on the database with 503 then).
 * Without a probe (the embedded engine) the database is always up.
 */
export class DatabaseAvailability {
  private health: DatabaseHealth = { state: 'up' };
  private readonly timing: AvailabilityTiming;
  private readonly downListeners: ((health: DatabaseHealth) => void)[] = [];
  private timer: NodeJS.Timeout | null = null;
  private probing: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly log: AvailabilityLog,
    private readonly probe: DatabaseProbe | null = null,
    timing: Partial<AvailabilityTiming> = {},
  ) {
    this.timing = { ...DEFAULT_TIMING, ...timing };
    this.schedule();
  }

  current(): DatabaseHealth {
    return this.health;
  }

  /** Called with each outage as it is declared. */
  onDown(listener: (health: DatabaseHealth) => void): void {
    this.downListeners.push(listener);
  }

  /**
   * A request met `err`: when it looks like an outage, the database is probed now (once, however
   * many requests suspect it). Returns the failure's class.
   */
  suspect(err: unknown): DbFailure | null {
    const failure = classifyDbError(err);
    if (failure === 'unavailable' && this.health.state === 'up') void this.check();
    return failure;
  }

  /** Probes now (joining a probe under way); resolves when it has settled the state. */
  check(): Promise<void> {
    if (!this.probe) return Promise.resolve();
    this.probing ??= this.runProbe().finally(() => {
      this.probing = null;
    });
    return this.probing;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private async runProbe(): Promise<void> {
    try {
      await this.probe!(this.timing.probeTimeoutMs);
      this.up();
    } catch (err) {
      this.down(err);
    }
  }

  private schedule(): void {
    if (!this.probe || this.closed) return;
    const delay = this.health.state === 'up' ? this.timing.heartbeatMs : this.timing.retryMs;
    this.timer = setTimeout(() => {
      void this.check().finally(() => this.schedule());
    }, delay);
    this.timer.unref();
  }

  private down(err: unknown): void {
    if (this.health.state === 'down') return;
    const reason = err instanceof Error ? err.message : String(err);
    this.health = { state: 'down', since: Date.now(), reason };
    this.log.warn(
      { err },
      'database unavailable: requests that need it are answered 503 with Retry-After until it is back',
    );
    for (const listener of this.downListeners) {
      try {
        listener(this.health);
      } catch {
        // A listener's failure must not keep the outage from being declared.
      }
    }
  }

  private up(): void {
    if (this.health.state === 'up') return;
    const downMs = Date.now() - this.health.since;
    this.health = { state: 'up' };
    this.log.info({ downMs }, 'database available again');
  }
}

/**
 * The probe for real PostgreSQL: `select 1` on a connection of its own (a fresh one after any
 * failure), so neither a full pool nor a connection stuck behind a frozen server answers for the
 * database. A server that does not answer within `timeoutMs` fails the probe; the verdict waits
 * for the event loop's pending input first, so a stalled process does not mistake its own delay
 * for the server's.
 */
export function postgresProbe(connectionString: string): DatabaseProbe & { close(): void } {
  let client: pg.Client | null = null;
  const drop = () => {
    const c = client;
    client = null;
    if (c) void c.end().catch(() => undefined);
  };
  const probe = async (timeoutMs: number) => {
    const started = Date.now();
    let settled = false;
    const ask = (async () => {
      if (!client) {
        const fresh = new pg.Client({ connectionString, application_name: 'pds-availability' });
        fresh.on('error', () => undefined);
        client = fresh;
        await fresh.connect();
      }
      await client.query('select 1');
    })().finally(() => {
      settled = true;
    });
    ask.catch(() => undefined);
    const verdict = new Promise<void>((_resolve, reject) => {
      const timer = setTimeout(
        () =>
          setImmediate(() => {
            if (!settled) reject(new Error(`no answer within ${Date.now() - started} ms`));
          }),
        timeoutMs,
      );
      void ask.finally(() => clearTimeout(timer)).catch(() => undefined);
    });
    try {
      await Promise.race([ask, verdict]);
    } catch (err) {
      drop();
      throw err;
    }
  };
  return Object.assign(probe, { close: drop });
}
