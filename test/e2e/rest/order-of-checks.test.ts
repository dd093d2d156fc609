import { startTestApp, type TestApp } from '../../support/app.js';
import { createApiKey, createTeam, setPlan } from '../../support/factories.js';

/**
 * The spec's order of checks on the Fusion APIs: credential, scope, plan, rate limit, and only then
 * the body or path. A request that fails several answers with the first; the 422 lists every
 * failed field.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp(
    {},
    {
      policies: {
        'floorplan-match': { points: 3, durationSeconds: 60, keyedBy: 'api-key' },
        'building-links': { points: 1000, durationSeconds: 60, keyedBy: 'api-key' },
        'auth-failure': { points: 10_000, durationSeconds: 60, keyedBy: 'ip' },
      },
    },
  );
});
afterAll(async () => {
  await t.close();
});

const BAD_BODY = JSON.stringify({ listings: [{ ref: '', bedrooms: 'two', colour: 'red' }] });

const match = (authorization: string | null, body = BAD_BODY) =>
  t.request('POST', '/api/v1/floorplan-match', {
    headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
    body,
  });
const link = (authorization: string | null, id: string) =>
  t.request('GET', `/api/v1/building-links/${id}`, { headers: authorization ? { authorization } : {} });

async function key(plan: string, scopes: string[]): Promise<string> {
  const team = await createTeam(t, { plan });
  return `Bearer ${(await createApiKey(t, team.id, scopes)).secret}`;
}

describe('Fusion APIs: a request that fails several checks gets the first', () => {
  it('an invalid body or id without a key, or with an unknown key, is a 401', async () => {
    for (const res of [
      await match(null),
      await match('Bearer pds_key_notarealkey'),
      await link(null, 'abc'),
      await link('Bearer pds_key_notarealkey', '0'),
    ]) {
      expect([res.status, Object.keys(res.json)]).toEqual([401, ['message']]);
    }
  });

  it('an invalid body or id from a key without the scope is a 403 naming the scope', async () => {
    const other = await key('pro', ['building-links']);
    const body = await match(other);
    expect([body.status, body.json]).toEqual([403, { message: expect.stringContaining('floorplan-match') }]);
    const id = await link(await key('pro', ['floorplan-match']), 'abc');
    expect([id.status, id.json]).toEqual([403, { message: expect.stringContaining('building-links') }]);
  });

  it('an invalid body from a team below Pro is the plan refusal', async () => {
    const team = await createTeam(t, { plan: 'pro' });
    const { secret } = await createApiKey(t, team.id, ['floorplan-match']);
    await setPlan(t, team.id, { plan: 'essential' });
    const res = await match(`Bearer ${secret}`);
    expect([res.status, res.json]).toEqual([
      403,
      { message: expect.any(String), scope: 'floorplan-match', upgrade_required: true },
    ]);
  });

  it('an invalid body is charged to the key, and once the limit is spent it is a 429, not a 422', async () => {
    const secret = await key('pro', ['floorplan-match']);
    for (let remaining = 2; remaining >= 0; remaining--) {
      const res = await match(secret);
      expect([res.status, res.headers.get('x-ratelimit-remaining')]).toEqual([422, String(remaining)]);
    }
    const limited = await match(secret);
    expect([limited.status, limited.text]).toEqual([429, '']);
  });

  it('the 422 names every failed field, by dotted path', async () => {
    const res = await match(await key('pro', ['floorplan-match']));
    expect(res.status).toBe(422);
    expect(res.json.message).toBe('The request body failed validation');
    expect(Object.keys(res.json.errors).sort()).toEqual([
      'listings.0',
      'listings.0.bedrooms',
      'listings.0.ref',
    ]);
    for (const messages of Object.values(res.json.errors)) {
      expect(messages).toEqual([expect.any(String)]);
    }
  });

  it('a path id that is not a building id is a 422 on id, after the credential', async () => {
    const secret = await key('pro', ['building-links']);
    for (const id of ['abc', '0', '2147483648', '12345678901', '1e3']) {
      const res = await link(secret, id);
      expect({ id, status: res.status, errors: res.json.errors }).toEqual({
        id,
        status: 422,
        errors: { id: ['must be a positive integer building id'] },
      });
    }
    expect((await link(secret, '2147483647')).status).toBe(404);
  });

  it('a body with a __proto__ or constructor key is refused by name, in the facade’s shape', async () => {
    const secret = await key('elite', ['floorplan-match']);
    const top = await match(secret, '{"__proto__": {"polluted": 1}, "listings": [{"ref": "a"}]}');
    expect(top.status).toBe(422);
    expect(top.json).toEqual({
      message: 'The request body failed validation',
      errors: { body: [expect.stringContaining('__proto__')] },
    });
    const nested = await match(
      secret,
      '{"listings": [{"ref": "a", "constructor": {"prototype": {"x": 1}}}]}',
    );
    expect(nested.status).toBe(422);
    expect(nested.json.errors).toEqual({ 'listings.0': [expect.stringContaining('constructor')] });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
