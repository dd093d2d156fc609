import { startTestApp, type TestApp } from '../../support/app.js';
import { createUser } from '../../support/factories.js';

/**
 * Failed sign-ins are limited per address AND per account, and the limits are
 * read before the password is hashed. Small budgets make the test short: 4 failures per address,
 * 6 per account (defaults: 30 a minute per address, 10 in 5 minutes per account).
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp(
    { TRUST_PROXY: '127.0.0.1' },
    {
      policies: {
        'auth-failure': { points: 4, durationSeconds: 60, keyedBy: 'ip' },
        'sign-in-account': { points: 6, durationSeconds: 60, keyedBy: 'account' },
        oauth: { points: 1_000_000, durationSeconds: 60, keyedBy: 'ip' },
      },
    },
  );
});
afterAll(async () => {
  await t.close();
});

async function signIn(
  ip: string,
  email: string,
  password: string,
): Promise<{ status: number; ms: number; retryAfter: string | null }> {
  const started = performance.now();
  // 303 (signed in, redirected) is the answer itself: not followed.
  const res = await fetch(`${t.url}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': ip },
    body: new URLSearchParams({ email, password, next: '/login' }).toString(),
  });
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - started, retryAfter: res.headers.get('retry-after') };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

describe('failed sign-in limits', () => {
  it('one address hammering is stopped there; everyone else, the same account included, still signs in', async () => {
    const victim = await createUser(t);
    const bystander = await createUser(t);
    const attacker = '203.0.113.7';
    const statuses: number[] = [];
    // Spread over two accounts so the per-account budget (6) is not what stops it.
    for (let i = 0; i < 7; i++) {
      statuses.push((await signIn(attacker, i % 2 ? victim.email : bystander.email, `guess-${i}`)).status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429, 429]);
    // The attacker's address is refused even with the right password ...
    expect((await signIn(attacker, victim.email, victim.password)).status).toBe(429);
    // ... while the real users, from their own addresses, sign in.
    expect((await signIn('198.51.100.20', victim.email, victim.password)).status).toBe(303);
    expect((await signIn('198.51.100.21', bystander.email, bystander.password)).status).toBe(303);
  });

  it('one account sprayed from many addresses is limited per account; other accounts are not', async () => {
    const target = await createUser(t);
    const other = await createUser(t);
    const statuses: number[] = [];
    for (let i = 0; i < 9; i++) {
      statuses.push((await signIn(`192.0.2.${10 + i}`, target.email, `spray-${i}`)).status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 429, 429, 429]);
    // The account waits out its window (at most the policy's duration) ...
    const held = await signIn('198.51.100.30', target.email, target.password);
    expect(held.status).toBe(429);
    expect(Number(held.retryAfter)).toBeLessThanOrEqual(60);
    // ... and no other account or address is touched by it.
    expect((await signIn('192.0.2.10', other.email, other.password)).status).toBe(303);
  });

  it('a refused attempt is answered before the password hash: it costs no scrypt', async () => {
    const user = await createUser(t);
    const address = '203.0.113.99';
    const hashed: number[] = [];
    for (let i = 0; i < 4; i++) hashed.push((await signIn(address, user.email, `wrong-${i}`)).ms);
    const refused: number[] = [];
    for (let i = 0; i < 9; i++) {
      const r = await signIn(address, user.email, `wrong-again-${i}`);
      expect(r.status).toBe(429);
      refused.push(r.ms);
    }
    // scrypt (N=16384, r=8) takes tens of ms; a refusal read from the limiter takes a few.
    expect(median(refused)).toBeLessThan(median(hashed) / 2);
  });
});
