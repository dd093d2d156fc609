import { startTestApp, type TestApp } from '../../support/app.js';
import { createApiKey, createProject, createTeam, memberToken, setPlan } from '../../support/factories.js';
import { makePdf, UPLOAD } from '../../support/pdf.js';

/**
 * GET /metrics as a Prometheus scraper reads it: refused without the scrape token, and each family
 * moves after the request it counts (read as the change between two scrapes: the registry is the
 * process's, shared by every app a test file builds).
 */
const METRICS_TOKEN = 'metrics-scrape-token-0123456789abcdef';
let t: TestApp;
let buildingId = 0;
let projectId = 0;

/** The sum of the series of `name` whose labels include `labels`, from a scrape's text. */
function figure(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries(
      [...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) sum += Number(m[3]);
  }
  return sum;
}

async function scrape(token = METRICS_TOKEN): Promise<string> {
  const res = await t.request('GET', '/metrics', { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text;
}

/** How much each of `reads` moved while `action` ran. */
async function moved(
  reads: Record<string, [string, Record<string, string>?]>,
  action: () => Promise<unknown>,
): Promise<Record<string, number>> {
  const before = await scrape();
  await action();
  const after = await scrape();
  return Object.fromEntries(
    Object.entries(reads).map(([key, [name, labels]]) => [
      key,
      figure(after, name, labels) - figure(before, name, labels),
    ]),
  );
}

const mcp = (token: string, name: string, args: Record<string, unknown>) =>
  t.request('POST', '/mcp', {
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });

beforeAll(async () => {
  t = await startTestApp(
    { METRICS_TOKEN },
    { policies: { 'building-links': { points: 2, durationSeconds: 60, keyedBy: 'api-key' } } },
  );
  const project = await createProject(t, { name: 'Metrics Tower' });
  projectId = project.id;
  const b = await t.op(`mutation($p: Int!) { createBuilding(input: {projectId: $p, name: "A"}) { id } }`, {
    p: project.id,
  });
  buildingId = b.createBuilding.id;
});
afterAll(async () => {
  await t.close();
});

describe('/metrics', () => {
  it('answers only the scrape token or the operator', async () => {
    expect((await t.request('GET', '/metrics')).status).toBe(401);
    const wrong = await t.request('GET', '/metrics', { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    expect(wrong.json).toEqual({ message: expect.stringMatching(/METRICS_TOKEN/) });
    await scrape(t.operator);
    const text = await scrape();
    expect(text).toMatch(/^# HELP pds_http_requests_total /m);
    expect(text).toMatch(/^pds_process_cpu_seconds_total /m);
    expect(text).toMatch(/^pds_nodejs_eventloop_lag_p99_seconds /m);
  });

  it('counts requests by route pattern and status, with their latency, and rate-limit and plan refusals by policy', async () => {
    const pro = await createTeam(t, { plan: 'pro' });
    const key = (await createApiKey(t, pro.id, ['building-links'])).secret;
    // A key made on Pro, then the team moved to a plan without Fusion.
    const downgraded = await createTeam(t, { plan: 'pro' });
    const lowKey = (await createApiKey(t, downgraded.id, ['building-links'])).secret;
    await setPlan(t, downgraded.id, { plan: 'essential' });
    const route = { route: '/api/v1/building-links/:id', method: 'GET' };
    const link = (secret: string) =>
      t.request('GET', `/api/v1/building-links/${buildingId}`, {
        headers: { authorization: `Bearer ${secret}` },
      });
    const delta = await moved(
      {
        ok: ['pds_http_requests_total', { ...route, status: '200' }],
        limited: ['pds_http_requests_total', { ...route, status: '429' }],
        upgrade: ['pds_http_requests_total', { ...route, status: '403' }],
        latency: ['pds_http_request_duration_seconds_count', { ...route, status: '200' }],
        rateRefusals: ['pds_rate_limit_refusals_total', { policy: 'building-links' }],
        planRefusals: ['pds_plan_refusals_total', { policy: 'building-links' }],
        requestsPoolStatements: ['pds_db_pool_acquire_seconds_count', { pool: 'requests' }],
      },
      async () => {
        for (let i = 0; i < 3; i++) await link(key);
        expect((await link(lowKey)).status).toBe(403);
      },
    );
    expect(delta).toMatchObject({
      ok: 2,
      limited: 1,
      upgrade: 1,
      latency: 2,
      rateRefusals: 1,
      planRefusals: 1,
    });
    expect(delta.requestsPoolStatements).toBeGreaterThan(0);
    const text = await scrape();
    expect(text).not.toMatch(new RegExp(`building-links/${buildingId}`));
    expect(figure(text, 'pds_db_pool_connections', { pool: 'requests', state: 'open' })).toBeGreaterThan(0);
  });

  it('counts MCP tool calls by tool and outcome, and search time by kind', async () => {
    const { secret } = await memberToken(t, 'pro');
    const delta = await moved(
      {
        listed: ['pds_mcp_tool_calls_total', { tool: 'list-projects', outcome: 'ok' }],
        searched: ['pds_mcp_tool_calls_total', { tool: 'search-document-text', outcome: 'ok' }],
        toolTime: ['pds_mcp_tool_duration_seconds_count', { tool: 'search-document-text' }],
        inProject: ['pds_search_duration_seconds_count', { kind: 'documents-in-project' }],
        everywhere: ['pds_search_duration_seconds_count', { kind: 'documents-everywhere' }],
        mentioning: ['pds_search_duration_seconds_count', { kind: 'projects-mentioning' }],
      },
      async () => {
        for (const [name, args] of [
          ['list-projects', { city: 'Toronto' }],
          ['search-document-text', { query: 'quartz', project_id: projectId }],
          ['search-document-text', { query: 'quartz' }],
          ['find-projects-mentioning', { query: 'quartz' }],
        ] as const) {
          const res = await mcp(secret, name, args);
          expect(res.status).toBe(200);
          expect(res.json.error).toBeUndefined();
        }
      },
    );
    expect(delta).toEqual({
      listed: 1,
      searched: 2,
      toolTime: 2,
      inProject: 1,
      everywhere: 1,
      mentioning: 1,
    });
  });

  it('counts extractions by outcome with their time, and reports the queue', async () => {
    const delta = await moved(
      {
        completed: ['pds_extractions_total', { outcome: 'completed' }],
        time: ['pds_extraction_duration_seconds_count', { outcome: 'completed' }],
      },
      async () => {
        await t.op(UPLOAD, {
          input: {
            projectId,
            name: 'metrics.pdf',
            category: 'features-finishes',
            contentBase64: (await makePdf(['Quartz countertops in every kitchen.'])).toString('base64'),
          },
        });
        await t.app.deps.ingestion.queue.idle();
      },
    );
    expect(delta).toEqual({ completed: 1, time: 1 });
    const text = await scrape();
    expect(text).toMatch(/^pds_extraction_queue_jobs\{state="queued"\} 0$/m);
    expect(text).toMatch(/^pds_extraction_queue_jobs\{state="active"\} 0$/m);
  });

  it('counts load shedding refusals', async () => {
    // A second app whose heap threshold every request is over: each is shed once shedding is armed.
    const shedding = await startTestApp({ OVERLOAD_MAX_HEAP_BYTES: '1' });
    try {
      await new Promise((r) => setTimeout(r, 1500));
      const delta = await moved(
        { shed: ['pds_requests_refused_total', { reason: 'overload' }] },
        async () => {
          expect((await shedding.request('GET', '/api/v1/building-links/1')).status).toBe(503);
        },
      );
      expect(delta.shed).toBe(1);
    } finally {
      await shedding.close();
    }
  });
});
