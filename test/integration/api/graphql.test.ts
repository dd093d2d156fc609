import { startTestApp, type TestApp } from '../../support/app.js';
import { createApiKey, createProject, createTeam } from '../../support/factories.js';

let t: TestApp;
let key: string;
const projectIds: number[] = [];

beforeAll(async () => {
  t = await startTestApp();
  const team = await createTeam(t, { plan: 'pro' });
  key = (await createApiKey(t, team.id, [])).secret;
  const cities = ['Toronto', 'Ottawa', 'Calgary'];
  for (let i = 0; i < 55; i++) {
    const p = await createProject(t, {
      name: `Pagination ${String(i).padStart(2, '0')}`,
      city: cities[i % 3],
      developerName: i % 2 ? 'Odd Developments' : 'Even Homes',
      salesStatus: i % 5 === 0 ? 'sold-out' : 'selling',
    });
    projectIds.push(p.id);
    await t.op(
      `mutation($p: Int!) { createBuilding(input: {projectId: $p, name: "Tower", addresses: ["${i} King St"]}) { id } }`,
      { p: p.id },
    );
  }
  const em = t.app.deps.em.fork();
  // A document per project, inserted directly: uploads come with the ingestion pipeline.
  for (const id of projectIds) {
    await em
      .getConnection()
      .execute(
        `insert into document (project_id, name, category, content_hash, byte_size, content, created_at) values (?, 'brochure.pdf', 'brochure', md5(?::text), 1, '\\x00', now())`,
        [Number(id), id],
      );
  }
});
afterAll(async () => {
  await t.close();
});

describe('GraphQL subgraph', () => {
  it('paginates projects with totals', async () => {
    const page = (n: number, perPage: number) =>
      t.gql(
        `query($n: Int!, $pp: Int!) { projects(page: $n, perPage: $pp, filter: {q: "Pagination"}) { items { name } total page perPage totalPages } }`,
        { n, pp: perPage },
        key,
      );
    const first = (await page(1, 20)).data.projects;
    expect(first).toMatchObject({ total: 55, page: 1, perPage: 20, totalPages: 3 });
    expect(first.items[0].name).toBe('Pagination 00');
    const last = (await page(3, 20)).data.projects;
    expect(last.items).toHaveLength(15);
    expect(last.items[14].name).toBe('Pagination 54');
    expect((await page(4, 20)).data.projects.items).toEqual([]);
    const tooBig = await page(1, 51);
    expect(tooBig.errors?.[0]).toMatchObject({
      message: 'perPage: must be an integer from 1 to 50',
      extensions: { code: 'BAD_USER_INPUT' },
    });
    expect((await page(0, 10)).errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('filters by city, status and developer', async () => {
    const q = (filter: object) =>
      t.gql(
        `query($f: ProjectFilter) { projects(filter: $f, perPage: 50) { total items { city } } }`,
        { f: { q: 'Pagination', ...filter } },
        key,
      );
    expect((await q({ city: 'ottawa' })).data.projects.total).toBe(18);
    expect((await q({ status: 'sold-out' })).data.projects.total).toBe(11);
    expect((await q({ developer: 'odd' })).data.projects.total).toBe(27);
    expect((await q({ city: 'Ottawa', developer: 'Even' })).data.projects.total).toBe(9);
    expect((await q({ q: 'no such project' })).data.projects.total).toBe(0);
  });

  it('loads 50 projects with buildings and documents in a constant number of SQL queries', async () => {
    const queries: string[] = [];
    const orm = t.app.db.orm;
    const logger = orm.config.getLogger();
    const original = logger.logQuery.bind(logger);
    orm.config.set('debug', ['query']);
    logger.setDebugMode(['query']);
    logger.logQuery = (context) => {
      queries.push(context.query!);
    };
    try {
      const run = async (perPage: number) => {
        queries.length = 0;
        const res = await t.gql(
          `query($pp: Int!) { projects(perPage: $pp, filter: {q: "Pagination"}) { items { id developerName buildings { name floorPlans { name } } documents { name } } } }`,
          { pp: perPage },
          key,
        );
        expect(res.errors).toBeUndefined();
        expect(res.data.projects.items).toHaveLength(perPage);
        expect(res.data.projects.items[0].buildings).toHaveLength(1);
        expect(res.data.projects.items[0].documents).toHaveLength(1);
        return queries.filter((q) => /^\s*select/i.test(q)).length;
      };
      const few = await run(5);
      const many = await run(50);
      expect(many).toBe(few);
      expect(many).toBeLessThanOrEqual(10);
    } finally {
      logger.logQuery = original;
      logger.setDebugMode(false);
    }
  });

  it('serves _service and resolves Project entities by reference', async () => {
    const svc = await t.gql(`{ _service { sdl } }`, {}, key);
    expect(svc.data._service.sdl).toMatch(/type Project\s+@key\(fields: "id"\)/);
    const ents = await t.gql(
      `query($r: [_Any!]!) { _entities(representations: $r) { ... on Project { id name city } } }`,
      {
        r: [
          { __typename: 'Project', id: projectIds[3] },
          { __typename: 'Project', id: 99999999 },
        ],
      },
      key,
    );
    expect(ents.errors).toBeUndefined();
    expect(ents.data._entities[0]).toEqual({ id: projectIds[3], name: 'Pagination 03', city: 'Toronto' });
    expect(ents.data._entities[1]).toBeNull();
  });

  it('requires a credential for project data', async () => {
    const res = await t.gql(`{ projects { total } }`);
    expect(res.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(res.data).toBeNull();
  });

  it('echoes or generates X-Request-Id and serves health checks', async () => {
    const res = await t.request('GET', '/healthz', { headers: { 'x-request-id': 'abc-123' } });
    expect(res.headers.get('x-request-id')).toBe('abc-123');
    const gen = await t.request('GET', '/readyz');
    expect(gen.status).toBe(200);
    expect(gen.json).toEqual({
      status: 'ready',
      checks: { database: 'up', queue: 'up', rateLimitStore: 'up' },
    });
    expect(gen.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
