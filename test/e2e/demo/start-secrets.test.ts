import { randomBytes } from 'node:crypto';
import { DEMO_PASSWORD } from '../../../src/demo/seed.js';
import { operator, sleepMs, startFreshService, type ServiceProcess } from '../../fault/harness.js';

/**
 * The compiled service started as `npm start` starts it, with the operator token configured and
 * the embedded database reachable from elsewhere (HOST=0.0.0.0), the demo not asked for: nothing
 * it prints carries the configured token, and no demo user exists.
 */
const OPERATOR = randomBytes(32).toString('base64url');
let service: ServiceProcess;
let close: () => Promise<void>;

beforeAll(async () => {
  // Reachable from elsewhere (HOST=0.0.0.0) and with the operator token configured.
  ({ service, close } = await startFreshService({ HOST: '0.0.0.0', PDS_ADMIN_TOKEN: OPERATOR }));
}, 180_000);

afterAll(async () => {
  await close?.();
});

/**
 * An operator GraphQL query's data (the harness's `operator`, which fails with the answer's
 * errors). A service just started on a busy machine may shed load or declare its embedded database
 * busy for a moment: that 503 (SERVICE_UNAVAILABLE) is waited out for up to 30 s, as a client
 * would; any other error fails at once.
 */
async function operatorData(query: string): Promise<any> {
  const until = Date.now() + 30_000;
  for (;;) {
    try {
      return await operator(service.url, OPERATOR, query);
    } catch (err) {
      if (!String(err).includes('SERVICE_UNAVAILABLE') || Date.now() >= until) throw err;
      await sleepMs(1000);
    }
  }
}

it('prints no secret it did not generate: the configured operator token appears nowhere', async () => {
  // The token works, so it is the one the service runs with.
  expect((await operatorData('{ viewer { credentialKind } }')).viewer.credentialKind).toBe('operator');
  const output = service.lines.join('\n');
  expect(output).not.toContain(OPERATOR);
  expect(output).not.toMatch(/Operator token/i);
  // No secret of any kind: nothing was generated, so nothing is printed.
  expect(output).not.toMatch(/pds_(key|mcp|op)_/);
});

it('seeds no demo users when the demo was not asked for', async () => {
  const output = service.lines.join('\n');
  expect(output).not.toContain(DEMO_PASSWORD);
  expect(output).not.toContain('@demo.example.com');
  // The demo owners' sign-in, as the banner would have printed it, is refused.
  for (const plan of ['free', 'pro', 'elite']) {
    const res = await fetch(`${service.url}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        email: `${plan}@demo.example.com`,
        password: DEMO_PASSWORD,
        next: '/login',
      }).toString(),
    });
    expect(res.status).not.toBe(303);
  }
  // And no project exists.
  expect((await operatorData('{ projects { total } }')).projects.total).toBe(0);
});
