import { randomUUID } from 'node:crypto';
import {
  createRateLimiter,
  type RateDecision,
  type RateLimiter,
  type RateLimiterOptions,
  type RatePolicy,
  type RateStoreConfig,
} from '../../../src/auth/rate-limit.js';

/** What a store under test provides: a config, and a second one reaching the same counters (another process). */
export interface StoreUnderTest {
  config: RateStoreConfig;
  /** The same counters as a second server process would reach them; null for the per-process memory store. */
  sibling: RateStoreConfig | null;
}

const small = (points: number, durationSeconds = 60): RatePolicy => ({
  points,
  durationSeconds,
  keyedBy: 'api-key',
});

export function allowedCount(decisions: RateDecision[]): number {
  return decisions.filter((d) => d.allowed).length;
}

/**
 * The behaviour every store must show. A limiter built here fails the test if it ever reports a
 * store error, so a broken store cannot pass by quietly running on the in-memory fallback.
 */
export function describeStoreContract(name: string, open: () => StoreUnderTest): void {
  describe(`rate limiter on ${name}`, () => {
    const limiters: RateLimiter[] = [];
    let storeErrors: unknown[] = [];

    async function limiter(
      config: RateStoreConfig,
      policies: RateLimiterOptions['policies'],
    ): Promise<RateLimiter> {
      const l = await createRateLimiter(config, {
        policies,
        onStoreError: (err) => storeErrors.push(err),
        // Generous: slow CI must not turn a healthy store into a fallback decision.
        storeTimeoutMs: 10_000,
      });
      limiters.push(l);
      return l;
    }

    beforeEach(() => {
      storeErrors = [];
    });
    afterEach(async () => {
      await Promise.all(limiters.splice(0).map((l) => l.close()));
      expect(storeErrors).toEqual([]);
    });

    it('counts down, then refuses with a retry delay within the window', async () => {
      const l = await limiter(open().config, { 'building-links': small(3, 60) });
      const key = randomUUID();
      const decisions: RateDecision[] = [];
      for (let i = 0; i < 5; i++) decisions.push(await l.consume('building-links', key));
      expect(decisions.map((d) => [d.allowed, d.remaining, d.limit])).toEqual([
        [true, 2, 3],
        [true, 1, 3],
        [true, 0, 3],
        [false, 0, 3],
        [false, 0, 3],
      ]);
      for (const d of decisions.slice(0, 3)) {
        expect(d.retryAfterSeconds).toBeNull();
        expect(d.resetSeconds).toBeGreaterThanOrEqual(58);
        expect(d.resetSeconds).toBeLessThanOrEqual(60);
      }
      for (const d of decisions.slice(3)) {
        expect(d.retryAfterSeconds).toBe(d.resetSeconds);
        expect(d.retryAfterSeconds).toBeGreaterThanOrEqual(58);
        expect(d.retryAfterSeconds).toBeLessThanOrEqual(60);
      }
    });

    it('keeps keys and policies apart', async () => {
      const l = await limiter(open().config, { mcp: small(1), graphql: small(1) });
      const a = randomUUID();
      const b = randomUUID();
      expect((await l.consume('mcp', a)).allowed).toBe(true);
      expect((await l.consume('mcp', a)).allowed).toBe(false);
      // The same key under another policy, and another key under the same policy, start fresh.
      expect((await l.consume('graphql', a)).allowed).toBe(true);
      expect((await l.consume('mcp', b)).allowed).toBe(true);
    });

    it('limits keys longer than the store column by their digest, still apart', async () => {
      const l = await limiter(open().config, { mcp: small(2) });
      const stem = 'k'.repeat(1000) + randomUUID();
      const [a1, a2, a3] = [
        await l.consume('mcp', `${stem}-a`),
        await l.consume('mcp', `${stem}-a`),
        await l.consume('mcp', `${stem}-a`),
      ];
      expect([a1.allowed, a2.allowed, a3.allowed]).toEqual([true, true, false]);
      expect((await l.consume('mcp', `${stem}-b`)).allowed).toBe(true);
    });

    it('holds the limit exactly under 50 concurrent calls', async () => {
      const l = await limiter(open().config, { 'floorplan-match': small(20) });
      const key = randomUUID();
      const decisions = await Promise.all(
        Array.from({ length: 50 }, () => l.consume('floorplan-match', key)),
      );
      expect(allowedCount(decisions)).toBe(20);
      // Each allowed call saw a distinct remaining count: the store incremented atomically.
      const remaining = decisions
        .filter((d) => d.allowed)
        .map((d) => d.remaining)
        .sort((x, y) => x - y);
      expect(remaining).toEqual(Array.from({ length: 20 }, (_, i) => i));
      for (const d of decisions.filter((x) => !x.allowed)) expect(d.retryAfterSeconds).toBeGreaterThan(0);
    });

    it('charging 0 points reads the count: allowed up to the limit, refused once past it', async () => {
      const l = await limiter(open().config, { 'sign-in-account': small(2) });
      const key = randomUUID();
      expect(await l.consume('sign-in-account', key, 0)).toMatchObject({ allowed: true, remaining: 2 });
      await l.consume('sign-in-account', key);
      await l.consume('sign-in-account', key);
      expect(await l.consume('sign-in-account', key, 0)).toMatchObject({ allowed: true, remaining: 0 });
      expect((await l.consume('sign-in-account', key)).allowed).toBe(false);
      expect((await l.consume('sign-in-account', key, 0)).allowed).toBe(false);
    });

    it('opens a new window once the old one has passed', async () => {
      const l = await limiter(open().config, { 'auth-failure': small(2, 1) });
      const key = randomUUID();
      await l.consume('auth-failure', key);
      await l.consume('auth-failure', key);
      const refused = await l.consume('auth-failure', key);
      expect(refused.allowed).toBe(false);
      expect(refused.retryAfterSeconds).toBe(1);
      await new Promise((r) => setTimeout(r, 1100));
      const again = await l.consume('auth-failure', key);
      expect(again).toMatchObject({ allowed: true, remaining: 1 });
    });

    it('shares counts between two limiters on the same store (two server processes)', async () => {
      const store = open();
      if (!store.sibling) {
        // The memory store is per limiter by design (the embedded default runs one process).
        const one = await limiter(store.config, { graphql: small(3) });
        const two = await limiter(store.config, { graphql: small(3) });
        const key = randomUUID();
        for (let i = 0; i < 3; i++) expect((await one.consume('graphql', key)).allowed).toBe(true);
        expect((await two.consume('graphql', key)).allowed).toBe(true);
        return;
      }
      const one = await limiter(store.config, { graphql: small(30) });
      const two = await limiter(store.sibling, { graphql: small(30) });
      const key = randomUUID();
      const decisions = await Promise.all(
        Array.from({ length: 50 }, (_, i) => (i % 2 ? one : two).consume('graphql', key)),
      );
      expect(allowedCount(decisions)).toBe(30);
      expect(await one.consume('graphql', key)).toMatchObject({ allowed: false });
      expect(await two.consume('graphql', key)).toMatchObject({ allowed: false });
    });
  });
}
