import { MAX_COMPLEXITY } from '../../../src/graphql/limits.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { createApiKey, createTeam } from '../../support/factories.js';

/**
 * A catalogue that fills every page: 50 projects, each with 10 buildings, 200 floor plans (20 per
 * building, 50 suites each in the unit schedule) and 60 documents. Loaded with SQL: thousands of
 * operator mutations would take minutes.
 */
const PROJECTS = 50;
let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await startTestApp();
  const team = await createTeam(t, { plan: 'elite' });
  key = (await createApiKey(t, team.id, [])).secret;
  const sql = t.app.db.orm.em.getConnection();
  await sql.execute(
    `insert into project (name, slug, city, address, province, created_at)
     select 'Hostile ' || g, 'hostile-' || g, 'Toronto', g || ' Long Address Street West', 'ON', now()
     from generate_series(1, ${PROJECTS}) g`,
  );
  await sql.execute(
    `insert into building (project_id, name, addresses, aliases, created_at)
     select p.id, 'Tower ' || b, array[b || ' Long Address Street West', b || ' Side Street'], array['The Tower ' || b], now()
     from project p cross join generate_series(1, 10) b`,
  );
  await sql.execute(
    `insert into floor_plan (project_id, building_id, name, model, bedrooms, dens, bathrooms, interior_sqft, exposure, floor_min, floor_max, stacks, unit_numbers, start_price, created_at)
     select b.project_id, b.id, 'Plan ' || f, 'Model ' || f, 2, 1, 2, 850, 'SE', 2, 40,
            array['01', '02', '03'], (select array_agg(lpad((u * 100)::text, 5, '0')) from generate_series(1, 50) u),
            650000, now()
     from building b cross join generate_series(1, 20) f`,
  );
  await sql.execute(
    `insert into document (project_id, name, category, content_hash, byte_size, content, created_at)
     select p.id, 'document-' || d || '-with-a-long-file-name.pdf', 'brochure', md5(p.id || '-' || d), 1, '\\x00', now()
     from project p cross join generate_series(1, 60) d`,
  );
}, 120_000);
afterAll(async () => {
  await t.close();
});

const FLOOR_PLAN =
  'id name model bedrooms dens bathrooms interiorSqft exteriorSqft exposure floorMin floorMax stacks unitNumbers startPrice';
const PROJECT =
  'id name slug address city province lat lng constructionStatus salesStatus storeys totalUnits priceMin priceMax occupancyDate';

/** The largest n (from `start` down) whose query the server accepts, with the answer's size. */
async function largestAccepted(build: (n: number) => string, start: number) {
  let n = start;
  while (n >= 1) {
    const res = await t.request('POST', '/graphql', {
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ query: build(n) }),
    });
    if (res.status === 200 && !res.json.errors) return { n, bytes: res.text.length };
    expect(res.status).toBe(400);
    const cost = /Query complexity (\d+) exceeds the maximum of 50000/.exec(res.json.errors[0].message);
    expect(cost).not.toBeNull();
    // The cost grows about linearly with n: jump close to the limit instead of stepping down by one.
    n = Math.min(n - 1, Math.floor((n * MAX_COMPLEXITY) / Number(cost![1])));
  }
  throw new Error('no size accepted');
}

describe('GraphQL cost bounds the answer', () => {
  it('refuses the small query that used to return tens of MB', async () => {
    const query = `{ projects(perPage: 50) { items { floorPlans(first: 200) { unitNumbers stacks name } buildings(first: 50) { floorPlans(first: 200) { unitNumbers } } documents(first: 200) { name } } } }`;
    expect(query.length).toBeLessThan(220);
    const res = await t.gql(query, {}, key);
    expect(res.status).toBe(400);
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors?.[0]?.message).toMatch(/Query complexity \d+ exceeds the maximum/);
  });

  it('keeps the largest accepted answers of hostile shapes to a few MB', async () => {
    const shapes: [string, (n: number) => string, number][] = [
      [
        'floor plans of many projects',
        (n) => `{ projects(perPage: ${n}) { items { floorPlans(first: 200) { ${FLOOR_PLAN} } } } }`,
        50,
      ],
      [
        'buildings and their floor plans',
        (n) =>
          `{ projects(perPage: ${n}) { items { ${PROJECT} buildings(first: 10) { id name addresses aliases floorPlans(first: 20) { ${FLOOR_PLAN} } } } } }`,
        50,
      ],
      [
        'documents',
        (n) =>
          `{ projects(perPage: ${n}) { items { documents(first: 60) { id name category isLatest byteSize contentHash createdAt } } } }`,
        50,
      ],
      [
        'aliases of the same list',
        (n) =>
          `{ ${Array.from({ length: n }, (_, i) => `a${i}: projects(perPage: 50) { items { ${PROJECT} } }`).join(' ')} }`,
        40,
      ],
    ];
    const sizes: string[] = [];
    for (const [name, build, start] of shapes) {
      const { n, bytes } = await largestAccepted(build, start);
      // The pages were really full (the bound is not vacuous), and the answer stayed a few MB.
      expect({ name, n, full: bytes > 100_000, fewMB: bytes < 4 * 1024 * 1024 }).toEqual({
        name,
        n,
        full: true,
        fewMB: true,
      });
      sizes.push(`${name}: n=${n}, ${(bytes / 1024).toFixed(0)} KB`);
    }
    console.log(`largest accepted answers (limit ${MAX_COMPLEXITY}):\n  ${sizes.join('\n  ')}`);
  }, 120_000);

  it('counts introspection, and refuses aliased copies of it past the limit', async () => {
    const copies = (n: number) =>
      `{ ${Array.from({ length: n }, (_, i) => `s${i}: __schema { types { name fields { name type { name ofType { name } } } } }`).join(' ')} }`;
    const within = await t.gql(copies(MAX_COMPLEXITY / 2000), {}, key);
    expect(within.errors).toBeUndefined();
    const over = await t.gql(copies(MAX_COMPLEXITY / 2000 + 1), {}, key);
    expect(over.status).toBe(400);
    expect(over.errors?.[0]?.message).toMatch(/Query complexity/);
  });

  it('pages nested lists with first and offset, within their bounds', async () => {
    const q = (args: string) =>
      t.gql(`{ projects(perPage: 1) { items { floorPlans(${args}) { name } } } }`, {}, key);
    const page = async (args: string) =>
      (await q(args)).data.projects.items[0].floorPlans.map((f: { name: string }) => f.name);
    expect(await page('first: 3')).toHaveLength(3);
    expect((await page('first: 200')).length).toBe(200);
    expect(await page('first: 2, offset: 1')).toEqual((await page('first: 3')).slice(1));
    expect(await page('offset: 190')).toHaveLength(10);
    for (const bad of ['first: 201', 'first: 0', 'offset: -1']) {
      const res = await q(bad);
      expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
    const defaults = await t.gql(
      `{ projects(perPage: 1) { items { buildings { id } documents { id } floorPlans { id } } } }`,
      {},
      key,
    );
    const item = defaults.data.projects.items[0];
    expect([item.buildings.length, item.documents.length, item.floorPlans.length]).toEqual([10, 50, 50]);
  });
});
