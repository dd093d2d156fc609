import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Pool } from 'pg';
import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
  RLWrapperTimeouts,
  type IRateLimiterOptions,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { rateLimitRefusals } from '../metrics/metrics.js';

export type RatePolicyName =
  | 'building-links'
  | 'floorplan-match'
  | 'changes'
  | 'mcp'
  | 'graphql'
  | 'auth-failure'
  | 'sign-in-account'
  | 'oauth'
  | 'client-registration';

export interface RatePolicy {
  points: number;
  durationSeconds: number;
  keyedBy: 'api-key' | 'token' | 'credential' | 'ip' | 'account';
}

/** The one policy table. Fusion limits are the spec's; mcp, graphql and auth-failure are ours (DESIGN §5). */
export const RATE_POLICIES: Readonly<Record<RatePolicyName, RatePolicy>> = Object.freeze({
  'building-links': { points: 120, durationSeconds: 60, keyedBy: 'api-key' },
  'floorplan-match': { points: 1000, durationSeconds: 60, keyedBy: 'api-key' },
  /** The change feed over REST: a poller reads a page, then waits or reads on while `has_more`. */
  changes: { points: 120, durationSeconds: 60, keyedBy: 'api-key' },
  mcp: { points: 300, durationSeconds: 60, keyedBy: 'token' },
  graphql: { points: 600, durationSeconds: 60, keyedBy: 'credential' },
  'auth-failure': { points: 30, durationSeconds: 60, keyedBy: 'ip' },
  /** Failed sign-ins per account from every address together: guessing is slowed, the owner waits at most 5 min. */
  'sign-in-account': { points: 10, durationSeconds: 300, keyedBy: 'account' },
  /** Login, consent, client registration and token requests, per address (src/oauth). */
  oauth: { points: 120, durationSeconds: 60, keyedBy: 'ip' },
  /** Dynamic client registrations per address: each stores a client for a day even if never used. */
  'client-registration': { points: 20, durationSeconds: 3600, keyedBy: 'ip' },
});

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window resets. */
  resetSeconds: number;
  /** Set when the request was refused. */
  retryAfterSeconds: number | null;
}

/** A key's window as it stands: what the settings' usage page shows. */
export interface RateWindow {
  limit: number;
  remaining: number;
  /** Seconds until the window resets; null when none is open (nothing charged lately: the full limit is left). */
  resetSeconds: number | null;
}

export type RateStoreConfig =
  { kind: 'memory' } | { kind: 'postgres'; pool: Pool } | { kind: 'redis'; url: string };

export interface RateLimiter {
  /** Charges `points` (1 by default); 0 charges nothing and tells whether the key is already over its limit. */
  consume(policy: RatePolicyName, key: string, points?: number): Promise<RateDecision>;
  /** The key's current window without charging it. */
  peek(policy: RatePolicyName, key: string): Promise<RateWindow>;
  /** For /readyz: `fallback` while the shared store is given up on and limits hold per process. */
  health(): RateLimiterHealth;
  close(): Promise<void>;
}

export interface RateLimiterOptions {
  policies?: Partial<Record<RatePolicyName, RatePolicy>>;
  /** Told once when the store is given up on (the circuit opens); calls are then decided by the in-memory fallback. */
  onStoreError?: (err: unknown) => void;
  /** Told once when the store answers again (the circuit closes). */
  onStoreRecovered?: () => void;
  /** A store call slower than this counts as failed and is decided by the fallback (default: Redis 100 ms, PostgreSQL 1000 ms). */
  storeTimeoutMs?: number;
  /** This many failed calls in a row open the circuit (default 5): one slow call on a loaded machine is not an outage. */
  circuitThreshold?: number;
  /** While the circuit is open, the store is probed this often; the first answer closes it (default 1000 ms). */
  probeIntervalMs?: number;
}

export type RateLimiterHealth = { state: 'ok' } | { state: 'fallback'; since: number; reason: string };

export const RATE_LIMIT_TABLE = 'rate_limit';
/** The table RateLimiterPostgres reads; created by a migration so the limiter never runs DDL itself. */
export const RATE_LIMIT_TABLE_SQL = `create table if not exists "${RATE_LIMIT_TABLE}" ("key" varchar(255) primary key, "points" integer not null default 0, "expire" bigint)`;

const KEY_PREFIX = 'pds-rl';
/** The postgres key column is varchar(255); longer keys are stored by digest so they never fail an insert. */
const MAX_RAW_KEY = 200;
/** Expired rows are not read again (the upsert resets them) but would pile up; sweep the stale ones. */
const SWEEP_EVERY_MS = 5 * 60_000;
const SWEEP_OLDER_THAN_MS = 60 * 60_000;

function decide(policy: RatePolicy, res: RateLimiterRes, allowed: boolean): RateDecision {
  const resetSeconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  return {
    allowed,
    limit: policy.points,
    remaining: allowed ? Math.max(0, res.remainingPoints) : 0,
    resetSeconds,
    retryAfterSeconds: allowed ? null : resetSeconds,
  };
}

function storeKey(key: string): string {
  return key.length <= MAX_RAW_KEY ? key : `sha256:${createHash('sha256').update(key).digest('hex')}`;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`rate-limit store did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Resolves once the first connection attempt settles, so start-up traffic is not needlessly served by the fallback. */
function firstConnection(redis: Redis, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      redis.off('error', done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    redis.once('ready', done);
    redis.once('error', done);
  });
}

/**
 * The per-process limiter rate-limiter-flexible calls as `insuranceLimiter` when the store fails or
 * does not answer within the timeout: each decision it takes for the store marks that call's
 * options object, so the breaker knows which calls the store did not decide.
 */
class StandIn extends RateLimiterMemory {
  constructor(
    opts: IRateLimiterOptions,
    private readonly stoodIn: WeakSet<object>,
  ) {
    super(opts);
  }

  override consume(key: string | number, points?: number, options: { [key: string]: unknown } = {}) {
    this.stoodIn.add(options);
    return super.consume(key, points, options);
  }
}

/**
 * One limiter for every transport. Counters live in the configured store so that all server
 * processes share them. Each store limiter is wrapped in rate-limiter-flexible's own
 * `RLWrapperTimeouts` with an in-memory `insuranceLimiter` of the same policy: a store call that
 * fails or takes longer than `storeTimeoutMs` is decided in memory (per-key limits then hold per
 * process). Around that, a circuit breaker: `circuitThreshold` such calls in a row open the circuit,
 * from then on every call is decided in memory at once (no timeout per request), the outage is
 * reported once, and the store is probed every `probeIntervalMs`; the first answer closes it.
 */
export async function createRateLimiter(
  store: RateStoreConfig,
  opts: RateLimiterOptions = {},
): Promise<RateLimiter> {
  const policies: Record<RatePolicyName, RatePolicy> = { ...RATE_POLICIES, ...opts.policies };
  const storeTimeoutMs = opts.storeTimeoutMs ?? (store.kind === 'redis' ? 100 : 1000);
  const threshold = Math.max(1, opts.circuitThreshold ?? 5);
  const probeIntervalMs = opts.probeIntervalMs ?? 1000;
  const tell = (fn: (() => void) | undefined) => {
    try {
      fn?.();
    } catch {
      // A faulty reporter must not turn a degraded limiter into a failing request.
    }
  };

  let redis: Redis | null = null;
  /** The store client's own last complaint (a refused connection, a reset), for the report. */
  let lastStoreError: Error | null = null;
  if (store.kind === 'redis') {
    redis = new Redis(store.url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: Math.max(storeTimeoutMs, 1000),
      // A frozen server must not collect commands forever; the caller stopped waiting long before.
      commandTimeout: Math.max(storeTimeoutMs * 10, 1000),
    });
    // Connection errors surface per call (and fall back); an unhandled 'error' event would crash the process.
    redis.on('error', (err: Error) => {
      lastStoreError = err;
    });
    await firstConnection(redis, Math.max(storeTimeoutMs, 1000));
  }

  let sweeper: NodeJS.Timeout | null = null;
  if (store.kind === 'postgres') {
    const pool = store.pool;
    sweeper = setInterval(() => {
      pool
        .query(`delete from "${RATE_LIMIT_TABLE}" where "expire" < $1`, [Date.now() - SWEEP_OLDER_THAN_MS])
        .catch(() => undefined);
    }, SWEEP_EVERY_MS);
    sweeper.unref();
  }

  const stoodIn = new WeakSet<object>();
  const limiters = new Map<RatePolicyName, { store: RateLimiterAbstract; memory: RateLimiterMemory }>();
  for (const [name, policy] of Object.entries(policies) as [RatePolicyName, RatePolicy][]) {
    // The prefix namespaces keys per policy, so one credential's mcp and graphql counts never mix.
    const base = {
      points: policy.points,
      duration: policy.durationSeconds,
      keyPrefix: `${KEY_PREFIX}:${name}`,
    };
    const memory = new StandIn(base, stoodIn);
    let shared: RateLimiterAbstract;
    switch (store.kind) {
      case 'memory':
        limiters.set(name, { store: new RateLimiterMemory(base), memory });
        continue;
      case 'postgres':
        shared = new RateLimiterPostgres({
          ...base,
          storeClient: store.pool,
          storeType: 'pool',
          tableName: RATE_LIMIT_TABLE,
          tableCreated: true,
          clearExpiredByTimeout: false,
        });
        break;
      case 'redis':
        shared = new RateLimiterRedis({ ...base, storeClient: redis, rejectIfRedisNotReady: true });
        break;
    }
    limiters.set(name, {
      store: new RLWrapperTimeouts({ limiter: shared, timeoutMs: storeTimeoutMs, insuranceLimiter: memory }),
      memory,
    });
  }

  /** Answers when the store itself answers (not a counter update): the probe that closes the circuit. */
  const probe = async (): Promise<void> => {
    if (store.kind === 'redis') {
      if (!redis) throw new Error('closed');
      await withTimeout(redis.ping(), Math.max(storeTimeoutMs * 10, 1000));
    } else if (store.kind === 'postgres') {
      await withTimeout(store.pool.query(`select 1 from "${RATE_LIMIT_TABLE}" limit 1`), 5000);
    }
  };

  let failuresInRow = 0;
  let open: { since: number; reason: string } | null = null;
  let prober: NodeJS.Timeout | null = null;
  let probing = false;
  const probeOnce = () => {
    if (probing || !open) return;
    probing = true;
    probe()
      .then(() => {
        if (!open) return;
        open = null;
        failuresInRow = 0;
        if (prober) clearInterval(prober);
        prober = null;
        tell(opts.onStoreRecovered);
      })
      // The probe's failure says why the store is given up on (a missing table, a refused connection).
      .catch((err: unknown) => {
        if (open) open.reason = err instanceof Error ? err.message : String(err);
      })
      .finally(() => {
        probing = false;
      });
  };
  const openCircuit = () => {
    const err =
      lastStoreError ??
      new Error(
        `the rate-limit store failed or did not answer within ${storeTimeoutMs} ms, ${threshold} calls in a row`,
      );
    open = { since: Date.now(), reason: err.message };
    tell(() => opts.onStoreError?.(err));
    probeOnce();
    prober = setInterval(probeOnce, probeIntervalMs);
    prober.unref();
  };

  return {
    async consume(name, rawKey, points = 1) {
      const policy = policies[name];
      const key = storeKey(rawKey);
      const { store: shared, memory } = limiters.get(name)!;
      const limiter = open ? memory : shared;
      const call = {};
      let res: RateLimiterRes;
      let allowed = true;
      try {
        res = await limiter.consume(key, points, call);
      } catch (err) {
        // rate-limiter-flexible rejects with a RateLimiterRes for "limited"; anything else is a bug.
        if (!(err instanceof RateLimiterRes)) throw err;
        res = err;
        allowed = false;
        rateLimitRefusals.inc({ policy: name });
      }
      if (store.kind !== 'memory' && !open) {
        if (!stoodIn.has(call)) failuresInRow = 0;
        else if (++failuresInRow >= threshold) openCircuit();
      }
      return decide(policy, res, allowed);
    },
    async peek(name, rawKey) {
      const policy = policies[name];
      const key = storeKey(rawKey);
      const read = async (limiter: RateLimiterAbstract): Promise<RateWindow> => {
        const res = await limiter.get(key);
        if (!res || res.msBeforeNext <= 0) {
          return { limit: policy.points, remaining: policy.points, resetSeconds: null };
        }
        const { remaining, resetSeconds } = decide(policy, res, true);
        return { limit: policy.points, remaining, resetSeconds };
      };
      const { store: shared, memory } = limiters.get(name)!;
      if (!open) {
        try {
          return await withTimeout(read(shared), storeTimeoutMs);
        } catch {
          // A store that cannot answer: the in-memory fallback's view is the best there is.
        }
      }
      return read(memory);
    },
    health() {
      return open ? { state: 'fallback', ...open } : { state: 'ok' };
    },
    async close() {
      if (sweeper) clearInterval(sweeper);
      if (prober) clearInterval(prober);
      sweeper = null;
      prober = null;
      const client = redis;
      redis = null;
      if (!client) return;
      if (client.status === 'ready') {
        await client.quit().catch(() => client.disconnect());
      } else {
        client.disconnect();
      }
    },
  };
}
