import fc from 'fast-check';
import { startTestApp, type TestApp } from '../../support/app.js';
import { errorLogCapture } from '../../support/error-log.js';

/**
 * The sign-in and sign-out forms with generated fields, boundary values first (NUL, unpaired
 * surrogates, long values, repeated and missing fields): an HTML answer below 500 every time, and
 * the form still works afterwards, and no error-level line is logged. PROPERTY_RUNS_FACTOR
 * multiplies the runs.
 */
const { logStream, errorLines } = errorLogCapture();
const RUNS = 60 * Number(process.env.PROPERTY_RUNS_FACTOR ?? 1);

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp(
    { LOG_LEVEL: 'warn' },
    {
      logger: true,
      logStream,
      policies: {
        oauth: { points: 1_000_000, durationSeconds: 60, keyedBy: 'ip' },
        'auth-failure': { points: 1_000_000, durationSeconds: 60, keyedBy: 'ip' },
        'sign-in-account': { points: 1_000_000, durationSeconds: 60, keyedBy: 'account' },
      },
    },
  );
});
afterAll(() => t.close());

const value = fc.oneof(
  fc.constantFrom(
    '',
    'a\u0000b',
    '\ud800',
    'x\udc00',
    'a@example.com',
    '/login',
    '//evil.example',
    'x'.repeat(5000),
  ),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
);
const form = fc.array(fc.tuple(fc.constantFrom('email', 'password', 'next', 'token', 'x'), value), {
  maxLength: 6,
});

describe('sign-in forms fuzzing', () => {
  it.each(['/login', '/logout'])('POST %s: generated fields never get a 5xx', async (path) => {
    await fc.assert(
      fc.asyncProperty(form, async (fields) => {
        const body = new URLSearchParams(fields).toString();
        const res = await fetch(`${t.url}${path}`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body,
        });
        expect(res.status).toBeLessThan(500);
        await res.arrayBuffer();
      }),
      { numRuns: RUNS },
    );
    const page = await fetch(`${t.url}/login`);
    expect(page.status).toBe(200);
  });

  it('GET /login with a generated next: a page, never a 5xx or an off-site link', async () => {
    await fc.assert(
      fc.asyncProperty(value, async (next) => {
        const res = await fetch(`${t.url}/login?${new URLSearchParams({ next }).toString()}`);
        expect(res.status).toBe(200);
        expect(await res.text()).not.toContain('evil.example');
      }),
      { numRuns: RUNS },
    );
  });
});

it('no input above made the service log an error', () => {
  expect(errorLines).toEqual([]);
});
