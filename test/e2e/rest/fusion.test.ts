import { Ajv2020 } from 'ajv/dist/2020.js';
import { Validator } from '@seriousme/openapi-schema-validator';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { ApiKeySchema } from '../../../src/credentials/credential.entity.js';
import { startTestApp, type HttpResult, type TestApp } from '../../support/app.js';
import { createApiKey, createProject, createTeam, setPlan } from '../../support/factories.js';

let t: TestApp;
let buildingId: number;
let projectId: number;
/** The committed contract, which the contract test holds equal to what the routes emit. */
const openapi = JSON.parse(readFileSync(new URL('../../../schema/openapi.json', import.meta.url), 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true });

/** Every response is checked against the OpenAPI document the service publishes. */
function conforms(path: string, method: string, res: HttpResult): void {
  const spec = openapi.paths[path][method].responses[String(res.status)];
  expect({ status: res.status, documented: Boolean(spec) }).toEqual({ status: res.status, documented: true });
  const schema = spec.content?.['application/json']?.schema;
  if (schema) {
    const validate = ajv.compile(schema);
    const ok = validate(res.json);
    expect({ body: res.json, errors: ok ? null : validate.errors }).toEqual({ body: res.json, errors: null });
  } else {
    expect(res.text).toBe('');
  }
}

beforeAll(async () => {
  t = await startTestApp(
    {},
    {
      policies: {
        'building-links': { points: 5, durationSeconds: 60, keyedBy: 'api-key' },
        'floorplan-match': { points: 1000, durationSeconds: 60, keyedBy: 'api-key' },
        'auth-failure': { points: 10_000, durationSeconds: 60, keyedBy: 'ip' },
      },
    },
  );
  projectId = (await createProject(t, { name: 'Harbour Lights', lat: 43.64, lng: -79.38 })).id;
  const b = await t.op(
    `mutation($p: Int!) { createBuilding(input: {projectId: $p, name: "Tower A", addresses: ["1 Harbour Street"], aliases: ["Harbour Lights Tower A"], mlsBuildingKey: "C-1234", condoCorpNumber: "TSCC 2999"}) { id } }`,
    { p: projectId },
  );
  buildingId = b.createBuilding.id;
  for (const [name, bedrooms, dens, sqft, stacks, exposure] of [
    ['Aria', 1, 0, 560, ['01', '02'], 'S'],
    ['Bloom', 1, 1, 640, ['03'], 'SW'],
    ['Crest', 2, 0, 820, ['04', '05'], 'E'],
  ] as const) {
    await t.op(`mutation($i: CreateFloorPlanInput!) { createFloorPlan(input: $i) { id } }`, {
      i: {
        projectId,
        buildingId,
        name,
        bedrooms,
        dens,
        bathrooms: bedrooms,
        interiorSqft: sqft,
        stacks,
        exposure,
        floorMin: 2,
        floorMax: 30,
      },
    });
  }
});
afterAll(async () => {
  await t.close();
});

const get = (path: string, auth?: string) =>
  t.request('GET', `/api/v1${path}`, { headers: auth === undefined ? {} : { authorization: auth } });
const match = (body: unknown, key: string, raw = false) =>
  t.request('POST', '/api/v1/floorplan-match', {
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: raw ? (body as string) : JSON.stringify(body),
  });

async function keyFor(plan: string, scopes: string[]) {
  const team = await createTeam(t, { plan });
  return { team, ...(await createApiKey(t, team.id, scopes)) };
}

describe('Fusion APIs: the spec error table, in order', () => {
  it('401 without a key and for invalid, revoked and expired keys; not charged to any key', async () => {
    const missing = await get(`/building-links/${buildingId}`);
    expect([missing.status, missing.json]).toEqual([401, { message: expect.stringMatching(/No API key/) }]);
    conforms('/building-links/{id}', 'get', missing);
    const bad = await get(`/building-links/${buildingId}`, 'Bearer pds_key_notarealkey');
    expect(bad.status).toBe(401);
    expect(bad.headers.get('x-ratelimit-limit')).toBeNull();
    const { id, secret } = await keyFor('pro', ['building-links']);
    await t.op(`mutation($id: Int!) { revokeApiKey(id: $id) { id } }`, { id });
    expect((await get(`/building-links/${buildingId}`, `Bearer ${secret}`)).status).toBe(401);
    const expired = await keyFor('pro', ['building-links']);
    await t.app.deps.em
      .fork()
      .nativeUpdate(ApiKeySchema, { id: Number(expired.id) }, { expiresAt: new Date(Date.now() - 1000) });
    expect((await get(`/building-links/${buildingId}`, expired.secret)).json.message).toMatch(/expired/);
  });

  it('403 naming the scope when the key lacks it', async () => {
    const { secret } = await keyFor('pro', ['floorplan-match']);
    const res = await get(`/building-links/${buildingId}`, `Bearer ${secret}`);
    expect(res.status).toBe(403);
    expect(res.json).toEqual({ message: expect.stringContaining('building-links') });
    conforms('/building-links/{id}', 'get', res);
  });

  it('403 upgrade_required below Pro, and a downgrade bites on the very next request', async () => {
    const { team, secret } = await keyFor('pro', ['building-links', 'floorplan-match']);
    expect((await get(`/building-links/${buildingId}`, secret)).status).toBe(200);
    await setPlan(t, team.id, { plan: 'essential' });
    const res = await get(`/building-links/${buildingId}`, `Bearer ${secret}`);
    expect(res.status).toBe(403);
    expect(res.json).toEqual({
      message: expect.any(String),
      scope: 'building-links',
      upgrade_required: true,
    });
    conforms('/building-links/{id}', 'get', res);
    const fpm = await match({ listings: [{ ref: 'a', building_id: Number(buildingId) }] }, secret);
    expect(fpm.json).toMatchObject({ scope: 'floorplan-match', upgrade_required: true });
  });

  it('200 with the building identities and rate-limit headers; 429 with an empty body and Retry-After', async () => {
    const { secret } = await keyFor('elite', ['building-links']);
    const ok = await get(`/building-links/${buildingId}`, `Bearer ${secret}`);
    expect(ok.status).toBe(200);
    conforms('/building-links/{id}', 'get', ok);
    expect(ok.json).toMatchObject({
      building: {
        name: 'Tower A',
        addresses: ['1 Harbour Street'],
        mls_building_keys: ['C-1234'],
        condo_corporation_number: 'TSCC 2999',
      },
      project: { name: 'Harbour Lights', city: 'Toronto' },
      geo: { lat: 43.64, lng: -79.38 },
      match: { method: 'building_id', confidence: 1 },
    });
    expect([ok.headers.get('x-ratelimit-limit'), ok.headers.get('x-ratelimit-remaining')]).toEqual([
      '5',
      '4',
    ]);
    expect(Number(ok.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
    for (let i = 0; i < 4; i++) expect((await get(`/building-links/${buildingId}`, secret)).status).toBe(200);
    const limited = await get(`/building-links/${buildingId}`, secret);
    expect([limited.status, limited.text]).toEqual([429, '']);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    conforms('/building-links/{id}', 'get', limited);
  });

  it('404 for an unknown building, 422 for a non-numeric id', async () => {
    const { secret } = await keyFor('pro', ['building-links']);
    const missing = await get('/building-links/999999', secret);
    expect([missing.status, missing.json]).toEqual([404, { message: 'No building with id 999999' }]);
    const bad = await get('/building-links/abc', secret);
    expect(bad.status).toBe(422);
    expect(bad.json.errors).toHaveProperty('id');
  });
});

describe('Floor Plan Match', () => {
  it('matches listings with signals; per-listing problems are per-listing results', async () => {
    const { secret } = await keyFor('pro', ['floorplan-match']);
    const res = await match(
      {
        listings: [
          {
            ref: 'exact',
            building_id: Number(buildingId),
            unit_number: '1203',
            bedrooms: 1,
            dens: 1,
            bathrooms: 1,
            interior_sqft: 640,
            exposure: 'SW',
          },
          {
            ref: 'by-address',
            address: '1 harbour street',
            unit_number: '804',
            bedrooms: 2,
            interior_sqft: [800, 840],
          },
          { ref: 'unknown-building', building_id: 999999, bedrooms: 1 },
          {
            ref: 'project',
            project_id: Number(projectId),
            bedrooms: 1,
            dens: 0,
            interior_sqft: 560,
            exposure: 'S',
          },
        ],
      },
      secret,
    );
    expect(res.status).toBe(200);
    conforms('/floorplan-match', 'post', res);
    const [exact, byAddress, unknown, project] = res.json.results;
    expect(exact).toMatchObject({ ref: 'exact', status: 'matched', best_match: { name: 'Bloom' } });
    expect(exact.signals.length).toBeGreaterThan(0);
    expect(byAddress).toMatchObject({ status: 'matched', best_match: { name: 'Crest' } });
    expect(unknown).toMatchObject({
      status: 'no_match',
      message: 'building 999999 not found',
      best_match: null,
    });
    expect(project).toMatchObject({ status: 'matched', best_match: { name: 'Aria' } });
  });

  it('writes exactly what the GraphQL operation returns (the schema-compiled serializer drops and reorders nothing)', async () => {
    const { secret } = await keyFor('pro', ['floorplan-match', 'building-links']);
    const listings = [
      { ref: 'a', building_id: buildingId, unit_number: '1203', bedrooms: 1, dens: 1, exposure: 'SW' },
      { ref: 'b', project_id: projectId, bedrooms: 2, interior_sqft: [800, 840] },
      { ref: 'c', building_id: 999999 },
    ];
    const rest = await match({ listings }, secret);
    const document = readFileSync(
      new URL('../../../facades/rest/floorplan-match.graphql', import.meta.url),
      'utf8',
    );
    const gql = await t.gql(document, { listings }, t.operator);
    expect(gql.errors).toBeUndefined();
    expect(rest.text).toBe(JSON.stringify(gql.data.result));

    const link = await get(`/building-links/${buildingId}`, `Bearer ${secret}`);
    const linkDocument = readFileSync(
      new URL('../../../facades/rest/building-link.graphql', import.meta.url),
      'utf8',
    );
    const linked = await t.gql(linkDocument, { id: buildingId }, t.operator);
    expect(linked.errors).toBeUndefined();
    expect(link.text).toBe(JSON.stringify(linked.data.result));
  });

  it.each([
    ['no listings', { listings: [] }, 'listings'],
    ['101 listings', { listings: Array.from({ length: 101 }, (_, i) => ({ ref: `r${i}` })) }, 'listings'],
    [
      'wrong type',
      { listings: [{ ref: 'a' }, { ref: 'b' }, { ref: 'c' }, { ref: 'd', bedrooms: 'two' }] },
      'listings.3.bedrooms',
    ],
    ['duplicate refs', { listings: [{ ref: 'a' }, { ref: 'a' }] }, 'listings.1.ref'],
    ['unknown field', { listings: [{ ref: 'a', colour: 'red' }] }, 'listings.0'],
    ['not an object', [1, 2], 'body'],
  ])('422 %s, with dotted field paths', async (_n, body, field) => {
    const { secret } = await keyFor('pro', ['floorplan-match']);
    const res = await match(body, secret);
    expect(res.status).toBe(422);
    expect(res.json.message).toBe('The request body failed validation');
    expect(Object.keys(res.json.errors)).toContain(field);
    expect(res.headers.get('x-ratelimit-limit')).toBe('1000');
    conforms('/floorplan-match', 'post', res);
  });

  it('transport errors: malformed JSON 400, unknown route 404, wrong method 405, wrong type 415, too large 413', async () => {
    const { secret } = await keyFor('pro', ['floorplan-match', 'building-links']);
    const malformed = await match('{"listings": [', secret, true);
    expect([malformed.status, malformed.json]).toEqual([400, { message: 'Malformed JSON body' }]);
    expect((await get('/nothing-here', secret)).json).toEqual({
      message: 'No route GET /api/v1/nothing-here',
    });
    const wrong = await t.request('GET', '/api/v1/floorplan-match', { headers: { authorization: secret } });
    expect([wrong.status, wrong.headers.get('allow')]).toEqual([405, 'POST']);
    const text = await t.request('POST', '/api/v1/floorplan-match', {
      headers: { authorization: secret, 'content-type': 'text/plain' },
      body: 'hi',
    });
    expect(text.status).toBe(415);
    const big = await match({ listings: [{ ref: 'x'.repeat(1_100_000) }] }, secret);
    expect([big.status, big.json]).toEqual([413, { message: 'Request body larger than 1 MB' }]);
  });

  it('fuzzed bodies and ids never produce a 5xx and the server keeps serving', async () => {
    const { secret } = await keyFor('elite', ['floorplan-match', 'building-links']);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.anything({ maxDepth: 3 }),
          fc.record({
            listings: fc.array(
              fc.dictionary(
                fc.constantFrom(
                  'ref',
                  'bedrooms',
                  'building_id',
                  'interior_sqft',
                  'unit_number',
                  'exposure',
                  'address',
                ),
                fc.anything({ maxDepth: 1 }),
              ),
              { maxLength: 5 },
            ),
          }),
        ),
        async (body) => {
          const res = await match(body === undefined ? null : body, secret);
          expect(res.status).toBeLessThan(500);
          expect([200, 400, 422]).toContain(res.status);
        },
      ),
      { numRuns: 120 },
    );
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 40 }), async (id) => {
        const res = await get(`/building-links/${encodeURIComponent(id)}`, secret);
        expect(res.status).toBeLessThan(500);
      }),
      { numRuns: 80 },
    );
    expect((await t.request('GET', '/healthz')).status).toBe(200);
  });
});

describe('OpenAPI', () => {
  it('is served, valid OpenAPI 3.1, and equal to the committed contract', async () => {
    const served = await t.request('GET', '/api/v1/openapi.json');
    expect(served.json).toEqual(openapi);
    const result = await new Validator().validate(served.json);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });
});
