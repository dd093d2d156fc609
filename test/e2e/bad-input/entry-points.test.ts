import { startTestApp, type TestApp } from '../../support/app.js';
import { createApiKey, createProject, createTeam, memberToken } from '../../support/factories.js';

/**
 * Input a caller can send that is out of range, unstorable or of the wrong JSON type is answered
 * as the caller's bad input on every entry point: a 4xx (or an MCP tool error), never a 5xx, a
 * JSON-RPC internal error or a database-outage 503, and the service keeps answering.
 */
let t: TestApp;
let mcp: string;
let key: string;
let teamId: number;

beforeAll(async () => {
  t = await startTestApp();
  const member = await memberToken(t, 'elite');
  mcp = member.secret;
  teamId = member.teamId;
  key = (await createApiKey(t, teamId, ['building-links', 'floorplan-match'])).secret;
  await createProject(t);
});
afterAll(() => t.close());

const rpc = (body: string) =>
  t.request('POST', '/mcp', {
    headers: { 'content-type': 'application/json', authorization: `Bearer ${mcp}` },
    body,
  });
const tool = (name: string, args: unknown) =>
  rpc(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }));
const rest = (method: string, path: string, body?: string) =>
  t.request(method, `/api/v1${path}`, {
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body,
  });

/** The service still answers a query that reads the database. */
async function stillAnswers(): Promise<void> {
  const res = await t.gql('{ projects { total } }', {}, t.operator);
  expect(res.status).toBe(200);
  expect(res.errors).toBeUndefined();
}

describe('integer ids beyond 2^31-1', () => {
  it.each([
    ['fetch-document-context', { chunk_id: 2147483648 }, 'chunk_id'],
    ['search-document-text', { query: 'pool', project_id: 2147483648 }, 'project_id'],
    ['list-project-documents', { project_id: 99999999999 }, 'project_id'],
    ['list-project-documents', { project_id: 1e30 }, 'project_id'],
  ])('%s %j is an invalid-arguments tool error naming the argument', async (name, args, field) => {
    const res = await tool(name, args);
    expect(res.status).toBe(200);
    expect(res.json.error).toBeUndefined();
    expect(res.json.result.isError).toBe(true);
    expect(res.json.result.content[0].text).toMatch(
      new RegExp(`^Invalid arguments: ${field} must be <= 2147483647`),
    );
  });

  it('every id argument of every tool publishes the one id range', async () => {
    const res = await rpc(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    const ids = (
      res.json.result.tools as { name: string; inputSchema: { properties: Record<string, any> } }[]
    )
      .flatMap((tl) => Object.entries(tl.inputSchema.properties).filter(([arg]) => /(^|_)id$/.test(arg)))
      .map(([, schema]) => schema)
      .filter((schema) => [schema.type].flat().includes('integer'));
    expect(ids.length).toBeGreaterThanOrEqual(3);
    for (const schema of ids) {
      expect(schema.minimum).toBe(1);
      expect(schema.maximum).toBe(2147483647);
    }
  });

  it('REST refuses 2147483648 with the 422 body and takes every id up to 2147483647', async () => {
    const over = await rest('GET', '/building-links/2147483648');
    expect(over.status).toBe(422);
    expect(over.json.errors.id).toEqual(['must be a positive integer building id']);
    for (const id of ['1000000000', '2147483647']) {
      const res = await rest('GET', `/building-links/${id}`);
      expect(res.status).toBe(404);
      expect(res.json.message).toBe(`No building with id ${id}`);
    }
  });

  it('GraphQL refuses them as BAD_USER_INPUT', async () => {
    const res = await t.gql('query($id: Int!) { project(id: $id) { id } }', { id: 2147483648 }, mcp);
    expect(res.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
  });
});

describe('text PostgreSQL cannot store (NUL, unpaired surrogates)', () => {
  it('MCP: a NUL in a string argument is an invalid-arguments tool error', async () => {
    for (const args of [{ city: 'a\u0000b' }, { q: 'x\ud800' }]) {
      const res = await tool('list-projects', args);
      expect(res.status).toBe(200);
      expect(res.json.result.isError).toBe(true);
      expect(res.json.result.content[0].text).toMatch(
        /^Invalid arguments: (city|q): must not contain NUL characters or unpaired surrogates/,
      );
    }
    await stillAnswers();
  });

  it('GraphQL: in a literal or a variable, a 400 BAD_USER_INPUT, never a 503', async () => {
    const literal = await t.gql('{ projects(filter: {q: "a\\u0000b"}) { total } }', {}, t.operator);
    expect(literal.status).toBe(400);
    expect(literal.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    for (const [query, variables] of [
      ['query($q: String) { projects(filter: {city: $q}) { total } }', { q: 'a\u0000b' }],
      [
        'mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret } }',
        { input: { teamId, name: 'a\u0000b', scopes: [] } },
      ],
      [
        'mutation($input: CreateProjectInput!) { createProject(input: $input) { id } }',
        { input: { name: 'a\u0000b', city: 'Toronto' } },
      ],
    ] as const) {
      const res = await t.gql(query, variables, t.operator);
      expect(res.status).toBe(400);
      expect(res.headers.get('retry-after')).toBeNull();
      expect(res.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
      expect(res.errors?.[0].message).toMatch(/must not contain NUL characters or unpaired surrogates/);
    }
    await stillAnswers();
  });

  it('REST: a NUL in a listing field is a 422 naming the field', async () => {
    const res = await rest('POST', '/floorplan-match', JSON.stringify({ listings: [{ ref: 'a\u0000b' }] }));
    expect(res.status).toBe(422);
    expect(res.json.errors['listings.0.ref']).toEqual([
      'must not contain NUL characters or unpaired surrogates',
    ]);
    await stillAnswers();
  });

  it('the sign-in form: a NUL in the email is a wrong sign-in, not an outage', async () => {
    const res = await t.request('POST', '/login', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=a%00b%40example.com&password=whatever-password',
    });
    expect(res.status).toBe(401);
    await stillAnswers();
  });
});

describe('JSON-RPC ids', () => {
  it.each(['{}', '[]', 'true', '{"a":1}'])(
    'an id of %s is -32600 Invalid Request with a null id',
    async (id) => {
      const res = await rpc(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
      expect(res.status).toBe(400);
      expect(res.json).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request: id must be a string, a number or null' },
      });
    },
  );

  it('an integer id beyond 2^53 is echoed digit for digit', async () => {
    const ping = await rpc('{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}');
    expect(ping.text).toBe('{"jsonrpc":"2.0","id":9007199254740993,"result":{}}');
    const call = await rpc(
      '{"jsonrpc":"2.0","id":-123456789012345678901,"method":"tools/call","params":{"name":"list-projects","arguments":{}}}',
    );
    expect(call.text.startsWith('{"jsonrpc":"2.0","id":-123456789012345678901,"result":')).toBe(true);
    const safe = await rpc('{"jsonrpc":"2.0","id":9007199254740991,"method":"ping"}');
    expect(safe.text).toBe('{"jsonrpc":"2.0","id":9007199254740991,"result":{}}');
  });
});

describe('oversized and odd bodies', () => {
  it('a 40,000-alias anonymous GraphQL query is a 400 BAD_USER_INPUT, not a 500', async () => {
    const query = `{ ${Array.from({ length: 40_000 }, (_, i) => `a${i}: __typename`).join(' ')} }`;
    const res = await t.gql(query);
    expect(res.status).toBe(400);
    expect(res.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors?.[0].message).toMatch(/more than 10000 fields/);
  });

  it('a "__proto__" key in a JSON body is dropped: the GraphQL request is answered', async () => {
    const res = await t.request('POST', '/graphql', {
      headers: { 'content-type': 'application/json' },
      body: '{"__proto__": {"polluted": true}, "query": "{ __typename }"}',
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: { __typename: 'Query' } });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a GraphQL body that is not JSON is refused in GraphQL error shape', async () => {
    const res = await t.request('POST', '/graphql', {
      headers: { 'content-type': 'application/json' },
      body: '{"query": ',
    });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      errors: [{ message: 'The request body is not valid JSON', extensions: { code: 'BAD_REQUEST' } }],
    });
  });

  it('REST refuses a "__proto__" key as an unknown field in the 422 body', async () => {
    const res = await rest('POST', '/floorplan-match', '{"__proto__": {"x": 1}, "listings": [{"ref": "a"}]}');
    expect(res.status).toBe(422);
    expect(res.json.message).toBe('The request body failed validation');
    expect(res.json.errors.body).toEqual(['Unrecognized key: "__proto__"']);
  });
});

describe('URLs the router cannot take', () => {
  it('a "%" that starts no %XX escape is a 400 in the shape of the entry point', async () => {
    const message = 'The URL is not valid: a "%" must start a %XX escape of UTF-8 text';
    const restRes = await rest('GET', '/building-links/%');
    expect([restRes.status, restRes.json]).toEqual([400, { message }]);
    const gql = await t.request('POST', '/graphql?x=%', {
      headers: { 'content-type': 'application/json' },
      body: '{"query":"{ __typename }"}',
    });
    // The query string is not routed: only a bad path is refused.
    expect(gql.status).toBe(200);
    const gqlPath = await t.request('GET', '/graphql%');
    expect([gqlPath.status, gqlPath.json]).toEqual([
      400,
      { errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] },
    ]);
    const mcpPath = await t.request('POST', '/mcp%', {
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect([mcpPath.status, mcpPath.json]).toEqual([
      400,
      { jsonrpc: '2.0', id: null, error: { code: -32600, message } },
    ]);
  });

  it('a path segment over 100 characters is a 414 with a sentence', async () => {
    const res = await rest('GET', `/building-links/${'1'.repeat(101)}`);
    expect([res.status, res.json]).toEqual([
      414,
      { message: 'A segment of the URL path is longer than 100 characters' },
    ]);
  });
});

it('a team the fixtures did not make can still be made after all of the above', async () => {
  await expect(createTeam(t, { plan: 'pro' })).resolves.toMatchObject({ plan: 'pro' });
});
