import { Ajv2020 } from 'ajv/dist/2020.js';
import { readFileSync } from 'node:fs';
import { startTestApp, type HttpResult, type TestApp } from '../../support/app.js';
import { createApiKey, createProject, createTeam, setPlan } from '../../support/factories.js';

/**
 * GET /api/v1/changes over real HTTP: the GraphQL change feed behind the one context (credential →
 * scope → plan → rate limit), answered as the committed OpenAPI document says.
 */
let t: TestApp;
const openapi = JSON.parse(readFileSync(new URL('../../../schema/openapi.json', import.meta.url), 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true });

function conforms(res: HttpResult): void {
  const spec = openapi.paths['/changes'].get.responses[String(res.status)];
  expect({ status: res.status, documented: Boolean(spec) }).toEqual({ status: res.status, documented: true });
  const schema = spec.content?.['application/json']?.schema;
  if (!schema) return expect(res.text).toBe('');
  const validate = ajv.compile(schema);
  const ok = validate(res.json);
  expect({ body: res.json, errors: ok ? null : validate.errors }).toEqual({ body: res.json, errors: null });
}

beforeAll(async () => {
  t = await startTestApp(
    {},
    {
      policies: {
        changes: { points: 1000, durationSeconds: 60, keyedBy: 'api-key' },
        'auth-failure': { points: 10_000, durationSeconds: 60, keyedBy: 'ip' },
      },
    },
  );
});
afterAll(async () => {
  await t.close();
});

const feed = (secret: string | null, query = '') =>
  t.request('GET', `/api/v1/changes${query}`, {
    headers: secret ? { authorization: `Bearer ${secret}` } : {},
  });

async function keyFor(plan: string, scopes: string[]) {
  const team = await createTeam(t, { plan });
  return { team, ...(await createApiKey(t, team.id, scopes)) };
}

/** Every event after the cursor, page by page, until the feed has the expected ones out. */
async function drain(secret: string, cursor: string | null, params: string, atLeast: number) {
  const events: any[] = [];
  let pages = 0;
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await feed(secret, `?limit=3${params}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    conforms(res);
    pages++;
    events.push(...res.json.data);
    cursor = res.json.meta.next_cursor;
    if (res.json.meta.has_more) continue;
    if (events.length >= atLeast || Date.now() > deadline) return { events, cursor, pages };
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('GET /api/v1/changes', () => {
  it('pages to the end visiting each event once, in order, then resumes where it stopped', async () => {
    const { secret } = await keyFor('pro', ['changes']);
    const start = await drain(secret, null, '', 0);
    const projects: number[] = [];
    for (let i = 0; i < 4; i++) projects.push((await createProject(t, { name: `Feed Rest ${i}` })).id);
    const sql = t.app.deps.em.fork().getConnection();
    for (const id of projects)
      await sql.execute(`update project set sales_status = 'selling' where id = ?`, [id]);

    const read = await drain(secret, start.cursor, '', 8);
    const ours = read.events.filter((e) => projects.includes(e.subject.id) && e.subject.type === 'project');
    expect(ours).toHaveLength(8);
    const ids = read.events.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(read.pages).toBeGreaterThanOrEqual(3);
    expect(ours.map((e) => `${e.type}:${e.subject.id}`)).toEqual([
      ...projects.map((id) => `project.created:${id}`),
      ...projects.map((id) => `project.changed:${id}`),
    ]);
    expect(ours[4]).toMatchObject({
      occurred_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      subject: { type: 'project', id: projects[0], project_id: projects[0] },
      changes: [{ field: 'sales_status', before: null, after: 'selling' }],
    });

    // Nothing new: an empty page that hands back the same place to resume from.
    const again = await feed(secret, `?cursor=${read.cursor}`);
    expect(again.json).toEqual({
      data: [],
      meta: { returned: 0, next_cursor: read.cursor, has_more: false },
    });

    // The filters narrow the feed the same way GraphQL's do.
    const narrowed = await drain(secret, start.cursor, `&types=project.changed&project_id=${projects[2]}`, 1);
    expect(narrowed.events.map((e) => [e.type, e.subject.id])).toEqual([['project.changed', projects[2]]]);
  });

  it('answers what the GraphQL field answers for the same cursor', async () => {
    const { secret } = await keyFor('elite', ['changes']);
    await createProject(t, { name: 'Feed Rest Same' });
    // The operator reads the same feed through GraphQL.
    const rest = await feed(secret, '?limit=5');
    const gql = await t.op(
      `{ changes(first: 5) { data { id occurredAt type subject { type id projectId } changes { field before after } } meta { returned nextCursor hasMore } } }`,
    );
    const data = gql.changes;
    expect(rest.json.data.map((e: any) => e.id)).toEqual(data.data.map((e: any) => e.id));
    expect(rest.json.meta.next_cursor).toBe(data.meta.nextCursor);
  });

  it('422 for a cursor the feed did not return, an unknown type, a limit out of range or an unknown parameter', async () => {
    const { secret } = await keyFor('pro', ['changes']);
    const bad = await feed(secret, '?cursor=not-a-cursor');
    expect(bad.status).toBe(422);
    expect(bad.json).toEqual({
      message: expect.stringContaining('cursor'),
      errors: { cursor: [expect.stringMatching(/not a cursor/)] },
    });
    conforms(bad);
    const forged = await feed(secret, `?cursor=${Buffer.from('chg:x:1').toString('base64url')}`);
    expect(forged.json.errors).toHaveProperty('cursor');
    const type = await feed(secret, '?types=project.changed,project.deleted');
    expect([type.status, Object.keys(type.json.errors)]).toEqual([422, ['types.1']]);
    conforms(type);
    for (const query of ['?limit=0', '?limit=201', '?limit=ten', '?project_id=0', '?after=abc']) {
      const res = await feed(secret, query);
      expect([query, res.status]).toEqual([query, 422]);
      conforms(res);
    }
    const both = await feed(secret, '?limit=0&project_id=x');
    expect(Object.keys(both.json.errors).sort()).toEqual(['limit', 'project_id']);
  });

  it('401 without a key; 403 naming the scope for a key without changes, before validation', async () => {
    const none = await feed(null);
    expect([none.status, Object.keys(none.json)]).toEqual([401, ['message']]);
    conforms(none);
    const { secret } = await keyFor('elite', ['building-links', 'floorplan-match']);
    for (const query of ['', '?cursor=not-a-cursor']) {
      const res = await feed(secret, query);
      expect([res.status, res.json]).toEqual([403, { message: expect.stringContaining("'changes'") }]);
      conforms(res);
    }
  });

  it('403 upgrade_required once the team is below Pro, before the query is validated', async () => {
    // Keys with a Fusion scope are created on Pro and Elite only; a downgrade bites on the next request.
    const pro = await keyFor('pro', ['changes']);
    expect((await feed(pro.secret)).status).toBe(200);
    await setPlan(t, pro.team.id, { plan: 'essential' });
    for (const query of ['', '?cursor=not-a-cursor']) {
      const refused = await feed(pro.secret, query);
      expect([refused.status, refused.json]).toEqual([
        403,
        { message: expect.stringContaining('essential'), scope: 'changes', upgrade_required: true },
      ]);
      conforms(refused);
    }
  });

  it('405 for another method', async () => {
    const res = await t.request('POST', '/api/v1/changes', {
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect([res.status, res.headers.get('allow')]).toEqual([405, 'GET']);
  });
});

describe('GET /api/v1/changes: the rate limit', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await startTestApp(
      {},
      { policies: { changes: { points: 3, durationSeconds: 60, keyedBy: 'api-key' } } },
    );
  });
  afterAll(async () => {
    await limited.close();
  });

  it('carries the rate-limit headers and answers 429 with an empty body and Retry-After past the policy', async () => {
    const team = await createTeam(limited, { plan: 'pro' });
    const { secret } = await createApiKey(limited, team.id, ['changes']);
    const call = () =>
      limited.request('GET', '/api/v1/changes', { headers: { authorization: `Bearer ${secret}` } });
    const first = await call();
    expect([
      first.status,
      first.headers.get('x-ratelimit-limit'),
      first.headers.get('x-ratelimit-remaining'),
    ]).toEqual([200, '3', '2']);
    await call();
    await call();
    const over = await call();
    expect(over.status).toBe(429);
    expect(over.text).toBe('');
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    // A bad cursor past the limit is still a 429: the limit is checked before the query.
    expect(
      (
        await limited.request('GET', '/api/v1/changes?cursor=x', {
          headers: { authorization: `Bearer ${secret}` },
        })
      ).status,
    ).toBe(429);
    // Another key of the same team has its own window.
    const other = await createApiKey(limited, team.id, ['changes']);
    expect(
      (
        await limited.request('GET', '/api/v1/changes', {
          headers: { authorization: `Bearer ${other.secret}` },
        })
      ).status,
    ).toBe(200);
  });
});
