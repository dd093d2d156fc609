import { startTestApp, type TestApp } from '../../support/app.js';
import { createApiKey, createTeam, memberToken } from '../../support/factories.js';

/**
 * The spec's numbers, written here as literals and run against the default policies (no test
 * overrides): a change to any of them in the code fails here, whatever the generated contracts say.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const DAY_MS = 24 * 60 * 60 * 1000;

async function fusionKey(plan = 'pro', standing: Record<string, string> = {}): Promise<string> {
  const team = await createTeam(t, { plan, ...standing });
  return (await createApiKey(t, team.id, ['building-links', 'floorplan-match'])).secret;
}

const buildingLink = (key: string) =>
  t.request('GET', '/api/v1/building-links/1', { headers: { authorization: `Bearer ${key}` } });

const floorPlanMatch = (key: string, body: unknown) =>
  t.request('POST', '/api/v1/floorplan-match', {
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('rate limits per minute', () => {
  it('Building Link: 120 requests per minute per API key, the 121st is 429', async () => {
    const key = await fusionKey();
    const first = await buildingLink(key);
    expect(first.headers.get('x-ratelimit-limit')).toBe('120');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('119');
    for (let i = 2; i <= 120; i++) expect((await buildingLink(key)).status).toBe(404);
    const over = await buildingLink(key);
    expect(over.status).toBe(429);
    expect(over.text).toBe('');
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(over.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    // Per key: another key of the same team has its own 120.
    expect((await buildingLink(await fusionKey())).headers.get('x-ratelimit-remaining')).toBe('119');
  });

  it('Floor Plan Match: 1,000 requests per minute per API key', async () => {
    const key = await fusionKey();
    const first = await floorPlanMatch(key, { listings: [{ ref: 'a' }] });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('999');
  });

  it('tool server: 300 calls per minute per token, the 301st is refused', async () => {
    const { secret } = await memberToken(t, 'pro');
    const ping = () =>
      t.request('POST', '/mcp', {
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      });
    for (let i = 1; i <= 300; i++) expect((await ping()).status).toBe(200);
    const over = await ping();
    expect(over.status).toBe(429);
    expect(over.json.error.code).toBe(-32000);
  });
});

describe('the past-due grace period is 7 days', () => {
  it.each([
    [6.9, 200],
    [7.1, 403],
  ])('past due for %s days: %s', async (days, status) => {
    const key = await fusionKey('pro', {
      subscriptionStatus: 'past_due',
      pastDueSince: new Date(Date.now() - days * DAY_MS).toISOString(),
    });
    const res = await floorPlanMatch(key, { listings: [{ ref: 'a' }] });
    expect(res.status).toBe(status);
    if (status === 403) expect(res.json.upgrade_required).toBe(true);
  });
});

describe('argument ranges, on the tool server and through GraphQL', () => {
  let token: string;
  beforeAll(async () => {
    token = (await memberToken(t, 'pro')).secret;
  });
  const tool = async (name: string, args: Record<string, unknown>) => {
    const res = await t.request('POST', '/mcp', {
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name, arguments: args },
      }),
    });
    return res.json.result as { isError?: boolean; content: { text: string }[] };
  };
  const refusedAsInput = async (query: string) => {
    const res = await t.gql(query, {}, token);
    return res.errors?.[0]?.extensions?.code === 'BAD_USER_INPUT';
  };

  it.each([
    ['search-document-text', 'limit', 25, 26, 'searchDocumentText(query: "pool", limit: %d) { data { __typename } }'],
    [
      'find-projects-mentioning',
      'limit',
      50,
      51,
      'findProjectsMentioning(query: "pool", limit: %d) { data { __typename } }',
    ],
  ])('%s %s: 1 to %d', async (name, arg, max, over, field) => {
    for (const ok of [1, max])
      expect((await tool(name, { query: 'pool', [arg]: ok })).isError).toBeUndefined();
    for (const bad of [0, over]) {
      const result = await tool(name, { query: 'pool', [arg]: bad });
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toMatch(new RegExp(`^Invalid arguments: ${arg} must be`));
      expect(await refusedAsInput(`{ ${field.replace('%d', String(bad))} }`)).toBe(true);
    }
    expect(await refusedAsInput(`{ ${field.replace('%d', String(max))} }`)).toBe(false);
  });

  it.each(['before', 'after'])('fetch-document-context %s: 0 to 5 on both entry points', async (arg) => {
    for (const bad of [-1, 6, 1000]) {
      const result = await tool('fetch-document-context', { chunk_id: 1, [arg]: bad });
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toMatch(new RegExp(`^Invalid arguments: ${arg} must be`));
      const res = await t.gql(`{ documentContext(chunkId: 1, ${arg}: ${bad}) { data { chunkId } } }`, {}, token);
      expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(res.errors?.[0]?.message).toBe(`${arg}: must be an integer from 0 to 5`);
    }
    for (const ok of [0, 5]) {
      // In range: the arguments pass, and the unknown chunk is what is refused.
      const res = await t.gql(`{ documentContext(chunkId: 1, ${arg}: ${ok}) { data { chunkId } } }`, {}, token);
      expect(res.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    }
  });
});

describe('a 422 names every bad field', () => {
  it('Floor Plan Match: four bad fields in two listings, each with its message', async () => {
    const key = await fusionKey();
    const res = await floorPlanMatch(key, {
      listings: [
        { ref: 'a', bedrooms: -1, exposure: 'UP' },
        { ref: 'b', building_id: 2147483648, interior_sqft: [900, 800] },
      ],
    });
    expect(res.status).toBe(422);
    expect(res.json.message).toBe('The request body failed validation');
    expect(Object.keys(res.json.errors).sort()).toEqual([
      'listings.0.bedrooms',
      'listings.0.exposure',
      'listings.1.building_id',
      'listings.1.interior_sqft',
    ]);
    for (const messages of Object.values(res.json.errors as Record<string, unknown>)) {
      expect(messages).toEqual([expect.any(String)]);
    }
  });
});
