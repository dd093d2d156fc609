import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { types } from 'node:util';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import {
  createRateLimiter,
  RATE_LIMIT_TABLE,
  RATE_LIMIT_TABLE_SQL,
  type RateLimiter,
  type RateStoreConfig,
} from '../../../src/auth/rate-limit.js';
import { allowedCount } from './store-contract.js';

/** A port nothing listens on: bound by us, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

const policies = { 'building-links': { points: 5, durationSeconds: 60, keyedBy: 'api-key' as const } };

async function expectFallbackLimits(limiter: RateLimiter, errors: unknown[]): Promise<void> {
  const key = randomUUID();
  const sequential = [];
  for (let i = 0; i < 8; i++) sequential.push(await limiter.consume('building-links', key));
  expect(sequential.map((d) => d.allowed)).toEqual([true, true, true, true, true, false, false, false]);
  expect(sequential[5].retryAfterSeconds).toBeGreaterThan(0);
  expect(errors.length).toBeGreaterThan(0);
  // isNativeError, not instanceof: errors raised by node's own sockets come from another realm under jest.
  expect(errors.every((e) => types.isNativeError(e))).toBe(true);

  const burstKey = randomUUID();
  const burst = await Promise.all(
    Array.from({ length: 50 }, () => limiter.consume('building-links', burstKey)),
  );
  expect(allowedCount(burst)).toBe(5);
}

describe('rate limiter when its store fails', () => {
  it('falls back to memory, still limits, and reports when Redis is unreachable', async () => {
    const errors: unknown[] = [];
    const started = Date.now();
    const limiter = await createRateLimiter(
      { kind: 'redis', url: `redis://127.0.0.1:${await closedPort()}` },
      { policies, onStoreError: (err) => errors.push(err), storeTimeoutMs: 500 },
    );
    // Start-up waits for the first connection attempt, never longer than the store timeout.
    expect(Date.now() - started).toBeLessThan(2000);
    await expectFallbackLimits(limiter, errors);
    await limiter.close();
  });

  it('falls back to memory, still limits, and reports when PostgreSQL is unreachable', async () => {
    const errors: unknown[] = [];
    const pool = new pg.Pool({
      connectionString: `postgres://postgres@127.0.0.1:${await closedPort()}/test`,
      connectionTimeoutMillis: 500,
    });
    const limiter = await createRateLimiter(
      { kind: 'postgres', pool },
      { policies, onStoreError: (err) => errors.push(err) },
    );
    await expectFallbackLimits(limiter, errors);
    await limiter.close();
    await pool.end();
  });

  describe('on PGlite', () => {
    let db: PGlite;
    beforeAll(async () => {
      db = await PGlite.create('memory://');
    });
    afterAll(async () => {
      await db.close();
    });

    it('reports a missing table (migration not run) and limits in memory', async () => {
      const errors: unknown[] = [];
      const pool = new pg.Pool({ ...createPgConfig(db), max: 1 });
      const limiter = await createRateLimiter(
        { kind: 'postgres', pool },
        { policies, onStoreError: (e) => errors.push(e) },
      );
      await expectFallbackLimits(limiter, errors);
      expect((errors[0] as { code?: string }).code).toBe('42P01');
      await limiter.close();
      await pool.end();
    });

    it('treats a slow store as failed, leaves it alone for a while, then goes back to it', async () => {
      const pool = new pg.Pool({ ...createPgConfig(db), max: 1 });
      await pool.query(RATE_LIMIT_TABLE_SQL);
      const errors: unknown[] = [];
      const limiter = await createRateLimiter(
        { kind: 'postgres', pool },
        { policies, onStoreError: (e) => errors.push(e), storeTimeoutMs: 200, storeRetryMs: 400 },
      );
      const key = randomUUID();
      const stored = async () => {
        const { rows } = await pool.query<{ points: number }>(
          `select points from "${RATE_LIMIT_TABLE}" where key = $1`,
          [`pds-rl:building-links:${key}`],
        );
        return rows[0]?.points ?? 0;
      };

      // The pool's only connection is busy (as when every connection is in a long transaction).
      const busy = await pool.connect();
      const started = Date.now();
      expect(await limiter.consume('building-links', key)).toMatchObject({ allowed: true, remaining: 4 });
      expect(Date.now() - started).toBeLessThan(1000);
      expect(errors).toHaveLength(1);
      expect(String(errors[0])).toMatch(/did not answer within 200 ms/);

      // Within the retry delay the store is not asked again: no new timeout, no new report.
      const quick = Date.now();
      expect(await limiter.consume('building-links', key)).toMatchObject({ allowed: true, remaining: 3 });
      expect(Date.now() - quick).toBeLessThan(150);
      expect(errors).toHaveLength(1);
      busy.release();

      // The timed-out query still ran once the connection was free; the store is the source of truth again.
      await new Promise((r) => setTimeout(r, 450));
      const afterRecovery = await limiter.consume('building-links', key);
      expect(errors).toHaveLength(1);
      expect(afterRecovery).toMatchObject({ allowed: true, remaining: 3 });
      expect(await stored()).toBe(2);
      await limiter.close();
      await pool.end();
    });
  });

  it('survives an onStoreError that throws', async () => {
    const limiter = await createRateLimiter(
      { kind: 'redis', url: `redis://127.0.0.1:${await closedPort()}` } satisfies RateStoreConfig,
      {
        policies,
        storeTimeoutMs: 300,
        onStoreError: () => {
          throw new Error('logger down');
        },
      },
    );
    await expect(limiter.consume('building-links', randomUUID())).resolves.toMatchObject({ allowed: true });
    await limiter.close();
  });
});
