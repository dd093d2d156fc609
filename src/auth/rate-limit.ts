import { Redis } from 'ioredis';
import type { Pool } from 'pg';
import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';

export type RatePolicyName = 'building-links' | 'floorplan-match' | 'mcp' | 'graphql' | 'auth-failure';

export interface RatePolicy {
  points: number;
  durationSeconds: number;
  keyedBy: 'api-key' | 'token' | 'credential' | 'ip';
}

/** The one policy table. Fusion limits are the spec's; mcp, graphql and auth-failure are ours (DESIGN §5). */
export const RATE_POLICIES: Readonly<Record<RatePolicyName, RatePolicy>> = Object.freeze({
  'building-links': { points: 120, durationSeconds: 60, keyedBy: 'api-key' },
  'floorplan-match': { points: 1000, durationSeconds: 60, keyedBy: 'api-key' },
  mcp: { points: 300, durationSeconds: 60, keyedBy: 'token' },
  graphql: { points: 600, durationSeconds: 60, keyedBy: 'credential' },
  'auth-failure': { points: 30, durationSeconds: 60, keyedBy: 'ip' },
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

export type RateStoreConfig =
  { kind: 'memory' } | { kind: 'postgres'; pool: Pool } | { kind: 'redis'; url: string };

export interface RateLimiter {
  consume(policy: RatePolicyName, key: string): Promise<RateDecision>;
  close(): Promise<void>;
}

export const RATE_LIMIT_TABLE = 'rate_limit';
/** The table RateLimiterPostgres reads; created by a migration so the limiter never runs DDL itself. */
export const RATE_LIMIT_TABLE_SQL = `create table if not exists "${RATE_LIMIT_TABLE}" ("key" varchar(255) primary key, "points" integer not null default 0, "expire" bigint)`;

const KEY_PREFIX = 'pds-rl';

function decide(policy: RatePolicy, res: RateLimiterRes, allowed: boolean): RateDecision {
  const resetSeconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  return {
    allowed,
    limit: policy.points,
    remaining: Math.max(0, res.remainingPoints),
    resetSeconds,
    retryAfterSeconds: allowed ? null : resetSeconds,
  };
}

/**
 * One limiter for every transport. Counters live in the configured store so that all server
 * processes share them; when the store fails, an in-memory limiter with the same policy takes over
 * for that call (limits still hold per process) and the failure is reported, never swallowed.
 */
export function createRateLimiter(
  store: RateStoreConfig,
  opts: {
    policies?: Partial<Record<RatePolicyName, RatePolicy>>;
    onStoreError?: (err: unknown) => void;
  } = {},
): Promise<RateLimiter> {
  const policies: Record<RatePolicyName, RatePolicy> = { ...RATE_POLICIES, ...opts.policies };
  let redis: Redis | null = null;
  if (store.kind === 'redis') {
    redis = new Redis(store.url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2000,
      lazyConnect: false,
    });
    // Connection errors surface per call (and fall back); an unhandled 'error' event would crash the process.
    redis.on('error', () => undefined);
  }
  const primary = new Map<RatePolicyName, RateLimiterAbstract>();
  const fallback = new Map<RatePolicyName, RateLimiterMemory>();
  for (const [name, policy] of Object.entries(policies) as [RatePolicyName, RatePolicy][]) {
    const base = {
      points: policy.points,
      duration: policy.durationSeconds,
      keyPrefix: `${KEY_PREFIX}:${name}`,
    };
    fallback.set(name, new RateLimiterMemory(base));
    switch (store.kind) {
      case 'memory':
        primary.set(name, new RateLimiterMemory(base));
        break;
      case 'postgres':
        primary.set(
          name,
          new RateLimiterPostgres({
            ...base,
            storeClient: store.pool,
            tableName: RATE_LIMIT_TABLE,
            tableCreated: true,
            clearExpiredByTimeout: false,
          }),
        );
        break;
      case 'redis':
        primary.set(name, new RateLimiterRedis({ ...base, storeClient: redis }));
        break;
    }
  }

  return Promise.resolve({
    async consume(name, key) {
      const policy = policies[name];
      const limiter = primary.get(name)!;
      try {
        return decide(policy, await limiter.consume(key, 1), true);
      } catch (err) {
        if (err instanceof RateLimiterRes) return decide(policy, err, false);
        opts.onStoreError?.(err);
        try {
          return decide(policy, await fallback.get(name)!.consume(key, 1), true);
        } catch (inner) {
          if (inner instanceof RateLimiterRes) return decide(policy, inner, false);
          throw inner;
        }
      }
    },
    close() {
      redis?.disconnect();
      redis = null;
      return Promise.resolve();
    },
  });
}
