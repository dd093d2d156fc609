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
      { policies, onStoreError: (err) => errors.push(err), storeTimeoutMs: 500, circuitThreshold: 3 },
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
      { policies, onStoreError: (err) => errors.push(err), circuitThreshold: 3 },
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
        { policies, onStoreError: (e) => errors.push(e), circuitThreshold: 1 },
      );
      await expectFallbackLimits(limiter, errors);
      // The probe that would close the circuit says why it stays open: the missing table.
      const deadline = Date.now() + 10_000;
      while (!/does not exist/.test(JSON.stringify(limiter.health())) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      expect(limiter.health()).toMatchObject({
        state: 'fallback',
        reason: expect.stringMatching(/rate_limit.*does not exist/),
      });
      await limiter.close();
      await pool.end();
    });

    it('decides slow calls in memory, opens the circuit only after failures in a row, and closes it when a probe answers', async () => {
      const pool = new pg.Pool({ ...createPgConfig(db), max: 1 });
      await pool.query(RATE_LIMIT_TABLE_SQL);
      const errors: unknown[] = [];
      let recovered = 0;
      const limiter = await createRateLimiter(
        { kind: 'postgres', pool },
        {
          policies,
          onStoreError: (e) => errors.push(e),
          onStoreRecovered: () => recovered++,
          storeTimeoutMs: 200,
          circuitThreshold: 3,
          probeIntervalMs: 200,
        },
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
      // Two slow calls: each decided in memory, the circuit still closed (one slow call is not an outage).
      for (const remaining of [4, 3]) {
        expect(await limiter.consume('building-links', key)).toMatchObject({ allowed: true, remaining });
      }
      expect(errors).toHaveLength(0);
      expect(limiter.health()).toEqual({ state: 'ok' });
      // The third failure in a row opens it: reported once, and the store is no longer waited for.
      expect(await limiter.consume('building-links', key)).toMatchObject({ allowed: true, remaining: 2 });
      expect(errors).toHaveLength(1);
      expect(String(errors[0])).toMatch(/did not answer within 200 ms/);
      expect(limiter.health()).toMatchObject({ state: 'fallback' });
      // Open, the circuit asks nothing of the store: no call joins those queued for the busy connection.
      const queued = pool.waitingCount;
      expect(queued).toBeGreaterThan(0);
      expect(await limiter.consume('building-links', key)).toMatchObject({ allowed: true, remaining: 1 });
      expect(pool.waitingCount).toBe(queued);
      expect(errors).toHaveLength(1);

      // The store answers again: a probe closes the circuit and the store is the source of truth again.
      busy.release();
      const deadline = Date.now() + 20_000;
      while (limiter.health().state !== 'ok' && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      expect(limiter.health()).toEqual({ state: 'ok' });
      expect(recovered).toBe(1);
      // The three timed-out calls still reached the store once the connection was free.
      await limiter.consume('building-links', key);
      expect(await stored()).toBe(4);
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
        circuitThreshold: 1,
        onStoreError: () => {
          throw new Error('logger down');
        },
      },
    );
    await expect(limiter.consume('building-links', randomUUID())).resolves.toMatchObject({ allowed: true });
    await limiter.close();
  });
});
