import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../../src/config.js';
import { operatorTokenForRun, startBanner } from '../../../src/demo/banner.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { createApiKey, createTeam } from '../../support/factories.js';

describe('the failed-credential limit per address', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(
      {},
      { policies: { 'auth-failure': { points: 3, durationSeconds: 60, keyedBy: 'ip' } } },
    );
  });
  afterAll(() => t.close());

  it('once over the limit, the right key is refused as the wrong ones are (read before verifying)', async () => {
    const team = await createTeam(t, { plan: 'pro' });
    const { secret } = await createApiKey(t, team.id, ['building-links']);
    const get = (key: string) =>
      t.request('GET', '/api/v1/building-links/1', { headers: { authorization: `Bearer ${key}` } });
    expect((await get(secret)).status).toBe(404);
    const wrong = `pds_key_${'A'.repeat(36)}`;
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await get(wrong)).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    const right = await get(secret);
    expect(right.status).toBe(429);
    expect(right.text).toBe('');
    expect(right.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});

describe('Document Intelligence through GraphQL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it.each([[[]], [['building-links', 'floorplan-match']]])(
    'is refused to an API key of an Elite team with scopes %j',
    async (scopes) => {
      const team = await createTeam(t, { plan: 'elite' });
      const { secret } = await createApiKey(t, team.id, scopes);
      for (const query of [
        '{ searchDocumentText(query: "pool", includeHistorical: true) { meta { query } } }',
        '{ findProjectsMentioning(query: "pool") { meta { query } } }',
        '{ documentContext(chunkId: 1) { data { chunkId } } }',
      ]) {
        const res = await t.gql(query, {}, secret);
        expect(res.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
        expect(res.errors?.[0]?.message).toMatch(/API keys serve the Fusion REST APIs only/);
      }
    },
  );
});

describe('the operator token', () => {
  const load = (token: string) => () =>
    loadConfig({ NODE_ENV: 'test', PDS_ADMIN_TOKEN: token, DEMO_SEED: 'off' });

  it.each([
    ['a repeated character', 'a'.repeat(64)],
    ['a phrase', 'correct horse battery staple'],
    ['a short pattern', 'abcabcabcabcabcabcabcabcabcabc'],
  ])('refuses %s: not enough entropy', (_name, token) => {
    expect(load(token)).toThrow(/PDS_ADMIN_TOKEN: must carry at least 128 bits of entropy/);
  });

  it.each([
    ['base64 of 32 random bytes', randomBytes(32).toString('base64')],
    ['hex of 32 random bytes', randomBytes(32).toString('hex')],
  ])('accepts %s', (_name, token) => {
    expect(load(token)().adminToken).toBe(token);
  });

  it('a configured token is never printed at start; a generated one is', () => {
    const configured = randomBytes(32).toString('base64url');
    const config = loadConfig({ NODE_ENV: 'production', PDS_ADMIN_TOKEN: configured });
    const run = operatorTokenForRun(config, () => 'pds_op_generated');
    expect(run).toEqual({ adminToken: configured, generated: null });
    const banner = startBanner(config, run.generated, null, 1);
    expect(banner).not.toContain(configured);
    expect(banner).not.toMatch(/Operator token/);

    const fresh = loadConfig({ NODE_ENV: 'production' });
    const generatedRun = operatorTokenForRun(fresh, () => 'pds_op_generated');
    expect(generatedRun).toEqual({ adminToken: 'pds_op_generated', generated: 'pds_op_generated' });
    expect(startBanner(fresh, generatedRun.generated, null, 1)).toContain(
      'Operator token (generated for this run only): pds_op_generated',
    );
    // A real database gets no generated token: its operator configures one.
    expect(operatorTokenForRun(loadConfig({ DATABASE_URL: 'postgres://x/y' }), () => 'g')).toEqual({
      adminToken: null,
      generated: null,
    });
  });
});

describe('demo data at start', () => {
  const demoSeed = (env: Record<string, string>) => loadConfig({ NODE_ENV: 'production', ...env }).demoSeed;

  it('is seeded on the embedded database listening on loopback (npm ci && npm start)', () => {
    expect(demoSeed({})).toBe(true);
    expect(demoSeed({ HOST: 'localhost' })).toBe(true);
  });

  it('is not seeded when the embedded database is reachable from elsewhere, unless asked for', () => {
    expect(demoSeed({ HOST: '0.0.0.0' })).toBe(false);
    expect(demoSeed({ HOST: '0.0.0.0', DEMO_SEED: 'on' })).toBe(true);
    expect(demoSeed({ DEMO_SEED: 'off' })).toBe(false);
  });

  it('is never seeded on a real database', () => {
    expect(demoSeed({ DATABASE_URL: 'postgres://db/pds' })).toBe(false);
    expect(demoSeed({ DATABASE_URL: 'postgres://db/pds', DEMO_SEED: 'on' })).toBe(false);
  });
});
