import { request as httpRequest } from 'node:http';
import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../../src/config.js';
import { ClientGone, DeadlineExceeded } from '../../../src/errors/aborted.js';
import { registerLoadShedding } from '../../../src/http/load-shedding.js';
import { redactUrl } from '../../../src/http/query-credentials.js';
import { buildHttpServer } from '../../../src/http/server.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { createAccessToken, createApiKey, createTeam } from '../../support/factories.js';

/** Sends the headers and half of a declared body, then waits for whatever the server answers. */
function stalledUpload(
  url: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, unknown>; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${url}${path}`,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': '100' },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) });
          req.destroy();
        });
      },
    );
    req.on('error', reject);
    req.write('{"jsonrpc":"2.0",');
  });
}

async function listen(server: FastifyInstance): Promise<string> {
  await server.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(server.addresses()[0] as { port: number }).port}`;
}

async function until(ready: () => boolean, ms = 5000): Promise<void> {
  for (const end = Date.now() + ms; !ready() && Date.now() < end;)
    await new Promise((r) => setTimeout(r, 20));
}

function busyWait(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    /* the point is to block the event loop */
  }
}

describe('HTTP layer: deadline, disconnect, load shedding', () => {
  let server: FastifyInstance;
  let url: string;
  const seen: { aborted: boolean; reason: unknown }[] = [];

  beforeAll(async () => {
    const config = loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      REQUEST_TIMEOUT_MS: '1500',
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
      OVERLOAD_RETRY_AFTER_SECONDS: '7',
    });
    server = buildHttpServer({ config }, { logger: false });
    // Probe routes: they only report what the HTTP layer hands every route.
    server.get('/healthz', () => ({ status: 'ok' }));
    server.get('/fast', () => ({ ok: true }));
    server.get('/wait', async (request) => {
      await new Promise<void>((resolve) => {
        const done = () => resolve();
        request.workSignal.addEventListener('abort', done);
        setTimeout(done, 5000);
      });
      seen.push({ aborted: request.workSignal.aborted, reason: request.workSignal.reason });
      return { late: true };
    });
    url = await listen(server);
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers 503 with Retry-After when the deadline passes, and aborts the work', async () => {
    seen.length = 0;
    const started = Date.now();
    const res = await fetch(`${url}/wait`);
    expect(Date.now() - started).toBeLessThan(4000);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(((await res.json()) as { message: string }).message).toMatch(/did not finish within 1500 ms/);
    await until(() => seen.length > 0);
    expect(seen[0]?.aborted).toBe(true);
    expect(seen[0]?.reason).toBeInstanceOf(DeadlineExceeded);
  });

  it('aborts the work of a client that disconnected', async () => {
    seen.length = 0;
    const controller = new AbortController();
    const pending = fetch(`${url}/wait`, { signal: controller.signal }).catch(() => null);
    await new Promise((r) => setTimeout(r, 100));
    controller.abort();
    await pending;
    await until(() => seen.length > 0);
    expect(seen[0]?.aborted).toBe(true);
    expect(seen[0]?.reason).toBeInstanceOf(ClientGone);
  });

  it('sheds new requests with 503 and Retry-After while the event loop is stalled; liveness stays 200', async () => {
    const config = loadConfig({
      NODE_ENV: 'test',
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '30',
      OVERLOAD_RETRY_AFTER_SECONDS: '7',
    });
    const shedding = buildHttpServer({ config }, { logger: false });
    await registerLoadShedding(shedding, config.overload);
    shedding.get('/healthz', () => ({ status: 'ok' }));
    shedding.get('/fast', () => ({ ok: true }));
    const base = await listen(shedding);
    try {
      await new Promise((r) => setTimeout(r, 700)); // shedding arms after the start-up samples
      let shed: Response | null = null;
      // The loop is stalled again before each pair of requests, so a busy machine that delays the
      // requests past the pressure's sample still meets a stalled loop; bounded at 10 s.
      const deadline = Date.now() + 10_000;
      while (!shed && Date.now() < deadline) {
        busyWait(400);
        const [res, health] = await Promise.all([fetch(`${base}/fast`), fetch(`${base}/healthz`)]);
        expect(health.status).toBe(200);
        if (res.status === 503) shed = res;
        else expect(res.status).toBe(200);
      }
      expect(shed?.headers.get('retry-after')).toBe('7');
      expect(((await shed!.json()) as { message: string }).message).toMatch(/overloaded/);
      // Once the loop is free again the next samples clear the pressure.
      let status = 0;
      for (let i = 0; i < 50 && status !== 200; i++) {
        await new Promise((r) => setTimeout(r, 100));
        status = (await fetch(`${base}/fast`)).status;
      }
      expect(status).toBe(200);
    } finally {
      await shedding.close();
    }
  });

  it('redacts credential parameters from logged URLs', () => {
    expect(redactUrl('/api/v1/building-links/1?api_key=pds_k_secret&x=1')).toBe(
      '/api/v1/building-links/1?api_key=%5Bredacted%5D&x=1',
    );
    expect(redactUrl('/login?next=%2F')).toBe('/login?next=%2F');
  });
});

describe('TRUST_PROXY', () => {
  const load = (v: string) => loadConfig({ TRUST_PROXY: v, NODE_ENV: 'test' }).trustProxy;
  it.each([
    ['1', 1],
    ['2', 2],
    ['false', false],
    ['10.0.0.0/8, 192.168.1.7', ['10.0.0.0/8', '192.168.1.7']],
    ['loopback,fd00::/8', ['loopback', 'fd00::/8']],
  ])('accepts %s', (value, expected) => {
    expect(load(value)).toEqual(expected);
  });
  it.each(['true', 'proxy.example', '10.0.0.0/33', '10.0.0.1/8/1'])('refuses %s', (value) => {
    expect(() => load(value)).toThrow(/TRUST_PROXY/);
  });
});

describe('through the whole service', () => {
  let t: TestApp;
  let log: string;
  let key: string;
  let token: string;

  beforeAll(async () => {
    const stream = new PassThrough();
    log = '';
    stream.on('data', (d: Buffer) => (log += d.toString()));
    t = await startTestApp(
      { REQUEST_TIMEOUT_MS: '2000', TRUST_PROXY: '127.0.0.1', LOG_LEVEL: 'info' },
      {
        logger: true,
        logStream: stream,
        policies: { 'auth-failure': { points: 2, durationSeconds: 60, keyedBy: 'ip' } },
      },
    );
    const team = await createTeam(t, { plan: 'elite' });
    key = (await createApiKey(t, team.id, ['building-links'])).secret;
    token = (await createAccessToken(t, team.id)).secret;
  });
  afterAll(async () => {
    await t.close();
  });

  it('refuses credentials in the query string with 400 on every transport and never logs them', async () => {
    for (const path of [
      `/api/v1/building-links/1?api_key=${key}`,
      `/mcp?access_token=${token}`,
      `/graphql?query=%7Bviewer%7Bscopes%7D%7D&token=${token}`,
      `/healthz?Api_Key=${key}`,
    ]) {
      const res = await t.request(path.startsWith('/mcp') ? 'POST' : 'GET', path, {
        headers: { 'content-type': 'application/json' },
        body: path.startsWith('/mcp') ? '{"jsonrpc":"2.0","id":1,"method":"ping"}' : undefined,
      });
      expect(res.status).toBe(400);
      expect(res.json.message).toMatch(/not accepted in the URL .*Authorization header/);
    }
    expect(log).toContain('refused a credential sent in the query string');
    expect(log).toContain('%5Bredacted%5D');
    expect(log).not.toContain(key);
    expect(log).not.toContain(token);
  });

  it('gives a stalled request 503 with Retry-After in its transport format', async () => {
    const mcp = await stalledUpload(t.url, '/mcp', { authorization: `Bearer ${token}` });
    expect(mcp.status).toBe(503);
    expect(mcp.headers['retry-after']).toBe('5');
    expect(mcp.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
    const gql = await stalledUpload(t.url, '/graphql', { authorization: `Bearer ${key}` });
    expect(gql.status).toBe(503);
    expect(gql.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
    const rest = await stalledUpload(t.url, '/api/v1/floorplan-match', { authorization: `Bearer ${key}` });
    expect(rest.status).toBe(503);
    expect(rest.body.message).toMatch(/did not finish within 2000 ms/);
  });

  it('keys per-address limits on the client address a trusted proxy forwards', async () => {
    const badLogin = (ip: string) =>
      t.request('POST', '/mcp', {
        headers: {
          'content-type': 'application/json',
          authorization: 'Bearer pds_mcp_notarealtoken',
          'x-forwarded-for': ip,
        },
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      });
    expect((await badLogin('203.0.113.5')).status).toBe(401);
    expect((await badLogin('203.0.113.5')).status).toBe(401);
    expect((await badLogin('203.0.113.5')).status).toBe(429);
    // Another client behind the same proxy is not locked out by the first one's failures.
    expect((await badLogin('198.51.100.9')).status).toBe(401);
  });

  it('answers variables of the wrong type with 400 and BAD_USER_INPUT', async () => {
    const cases: [string, Record<string, unknown>][] = [
      ['query($id: Int!) { project(id: $id) { id } }', { id: { a: 1 } }],
      ['query($n: Int!) { projects(perPage: $n) { total } }', { n: 'abc' }],
      ['query($f: ProjectFilter) { projects(filter: $f) { total } }', { f: { city: 5 } }],
      [
        'query($l: [FloorPlanListing!]!) { matchFloorPlans(listings: $l) { results { ref } } }',
        { l: [{ ref: 'a', interior_sqft: 'x' }] },
      ],
    ];
    for (const [query, variables] of cases) {
      const res = await t.gql(query, variables, key);
      expect(res.status).toBe(400);
      expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(res.errors?.[0]?.message).toMatch(/^Variable "\$\w+" got invalid value/);
    }
  });

  it('answers introspection to signed-in callers only (outside development)', async () => {
    const query = '{ __schema { queryType { name } } }';
    const anonymous = await t.gql(query);
    expect(anonymous.status).toBe(401);
    expect(anonymous.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(anonymous.errors?.[0]?.message).toMatch(/schema\/subgraph.graphql/);
    const viaFragment = await t.gql('{ ...F } fragment F on Query { __type(name: "Project") { name } }');
    expect(viaFragment.status).toBe(401);
    expect((await t.gql('{ __typename }')).data).toEqual({ __typename: 'Query' });
    const signedIn = await t.gql(query, {}, key);
    expect(signedIn.errors).toBeUndefined();
    expect(signedIn.data.__schema.queryType.name).toBe('Query');
  });
});
