import pg from 'pg';
import { startTestApp, type TestApp } from '../../support/app.js';
import {
  addMember,
  createAccessToken,
  createApiKey,
  createProject,
  createTeam,
  createUser,
} from '../../support/factories.js';
import { makePdf, UPLOAD } from '../../support/pdf.js';
import { describeWith } from '../../support/requirements.js';

let t: TestApp;
const tokens: Record<string, string> = {};
let proTeam: number;

const FEED = `query($after: String, $first: Int, $types: [String!], $p: Int) {
  changes(after: $after, first: $first, types: $types, projectId: $p) {
    data { id occurredAt type subject { type id projectId } changes { field before after } }
    meta { returned nextCursor hasMore } } }`;

async function read(after: string | null, vars: Record<string, unknown> = {}, secret = tokens.pro) {
  const res = await t.gql(FEED, { after, ...vars }, secret);
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data.changes;
}

/** Every event after the cursor, page by page, and the cursor to resume from. */
async function drainOnce(after: string | null, vars: Record<string, unknown> = {}) {
  const events: any[] = [];
  let cursor = after;
  for (let i = 0; i < 200; i++) {
    const page = await read(cursor, { first: 7, ...vars });
    events.push(...page.data);
    cursor = page.meta.nextCursor;
    if (!page.meta.hasMore) break;
  }
  return { events, cursor };
}

/**
 * The feed holds events back while any older transaction in the cluster is still running (other
 * test files' databases share the server), so a reader waits until the events it expects are out.
 */
async function drain(after: string | null, vars: Record<string, unknown> = {}, atLeast = 0) {
  const deadline = Date.now() + 20_000;
  const events: any[] = [];
  let cursor = after;
  for (;;) {
    const page = await drainOnce(cursor, vars);
    events.push(...page.events);
    cursor = page.cursor;
    if (events.length >= atLeast || Date.now() > deadline) return { events, cursor };
    await new Promise((r) => setTimeout(r, 100));
  }
}

const sql = (text: string, params: unknown[] = []) =>
  t.app.deps.em.fork().getConnection().execute(text, params);

beforeAll(async () => {
  t = await startTestApp();
  for (const plan of ['essential', 'pro']) {
    const team = await createTeam(t, { plan });
    const user = await createUser(t);
    await addMember(t, team.id, user.id);
    tokens[plan] = (await createAccessToken(t, team.id, user.id)).secret;
    if (plan === 'pro') proTeam = team.id;
  }
});
afterAll(async () => {
  await t.close();
});

describe('the change feed', () => {
  it('has an event for each committed change, with the changed fields before and after', async () => {
    const { cursor } = await drain(null);
    const project = await createProject(t, { name: 'Feed Towers' });
    await sql(`update project set sales_status = 'selling', occupancy_date = '2028-06' where id = ?`, [
      project.id,
    ]);
    await sql(`update project set city = city where id = ?`, [project.id]);
    const { events } = await drain(cursor, { p: project.id }, 2);
    expect(events.map((e) => e.type)).toEqual(['project.created', 'project.changed']);
    expect(events[0].subject).toEqual({ type: 'project', id: project.id, projectId: project.id });
    expect(events[0].changes).toContainEqual({ field: 'name', before: null, after: 'Feed Towers' });
    expect(events[1].changes).toEqual(
      expect.arrayContaining([
        { field: 'sales_status', before: null, after: 'selling' },
        { field: 'occupancy_date', before: null, after: '2028-06' },
      ]),
    );
    expect(events[1].changes).toHaveLength(2);
    expect(Date.parse(events[1].occurredAt)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('has building and floor-plan events holding exactly the tracked fields that differ', async () => {
    const { cursor } = await drain(null);
    const project = await createProject(t);
    const [building] = await sql(
      `insert into building (project_id, name, addresses, aliases, created_at)
       values (?, 'Tower A', '{"1 King St"}', '{}', now()) returning id`,
      [project.id],
    );
    const [plan] = await sql(
      `insert into floor_plan (project_id, building_id, name, bedrooms, bathrooms, stacks, unit_numbers, created_at)
       values (?, ?, 'Lismer', 1, 1.5, '{}', '{}', now()) returning id`,
      [project.id, building.id],
    );
    await sql(
      `update building set addresses = '{"1 King St","3 King St"}', mls_building_key = 'MLS-1' where id = ?`,
      [building.id],
    );
    // stacks is not a tracked field; bathrooms 2 then 2.0 is one change.
    await sql(`update floor_plan set bathrooms = 2, start_price = 599900, stacks = '{"04"}' where id = ?`, [
      plan.id,
    ]);
    await sql(`update floor_plan set bathrooms = 2.0, stacks = '{"05"}' where id = ?`, [plan.id]);
    const { events } = await drain(cursor, { p: project.id }, 5);
    expect(events.map((e) => `${e.type} ${e.subject.id}`)).toEqual([
      `project.created ${project.id}`,
      `building.created ${building.id}`,
      `floor_plan.created ${plan.id}`,
      `building.changed ${building.id}`,
      `floor_plan.changed ${plan.id}`,
    ]);
    const fields = (e: { changes: { field: string; before: unknown; after: unknown }[] }) =>
      Object.fromEntries(e.changes.map((c) => [c.field, [c.before, c.after]]));
    expect(fields(events[1])).toEqual({
      name: [null, 'Tower A'],
      addresses: [null, ['1 King St']],
      aliases: [null, []],
      mls_building_key: [null, null],
      condo_corp_number: [null, null],
    });
    expect(fields(events[2])).toEqual({
      name: [null, 'Lismer'],
      model: [null, null],
      bedrooms: [null, 1],
      dens: [null, 0],
      bathrooms: [null, 1.5],
      interior_sqft: [null, null],
      exterior_sqft: [null, null],
      exposure: [null, null],
      floor_min: [null, null],
      floor_max: [null, null],
      start_price: [null, null],
    });
    expect(fields(events[3])).toEqual({
      addresses: [['1 King St'], ['1 King St', '3 King St']],
      mls_building_key: [null, 'MLS-1'],
    });
    expect(fields(events[4])).toEqual({ bathrooms: [1.5, 2], start_price: [null, 599900] });
    for (const e of events) expect(e.subject.projectId).toBe(project.id);
  });

  it('has no event for a change rolled back', async () => {
    const { cursor } = await drain(null);
    const project = await createProject(t);
    const em = t.app.deps.em.fork();
    await expect(
      em.transactional(async (tx) => {
        await tx
          .getConnection()
          .execute(
            `update project set sales_status = 'sold-out' where id = ?`,
            [project.id],
            'run',
            tx.getTransactionContext(),
          );
        throw new Error('abandon');
      }),
    ).rejects.toThrow('abandon');
    const { events } = await drain(cursor, { p: project.id }, 1);
    expect(events.map((e) => e.type)).toEqual(['project.created']);
  });

  it('tells documents published, indexed, superseded and failed', async () => {
    const { cursor } = await drain(null);
    const project = await createProject(t);
    const upload = async (name: string, content: Buffer, supersedes?: number) => {
      const res = await t.gql(
        UPLOAD,
        {
          input: {
            projectId: project.id,
            name,
            category: 'price-list',
            contentBase64: content.toString('base64'),
            supersedesDocumentId: supersedes,
          },
        },
        t.operator,
      );
      if (res.errors) throw new Error(JSON.stringify(res.errors));
      return res.data.uploadDocument.document.id as number;
    };
    const v1 = await upload('v1.pdf', await makePdf(['Suite 1B $1,249,900']));
    await t.app.deps.ingestion.queue.idle();
    const v2 = await upload('v2.pdf', await makePdf(['Suite 1B $1,279,900']), v1);
    const broken = await upload(
      'broken.pdf',
      Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from('not a pdf at all')]),
    );
    await t.app.deps.ingestion.queue.idle();
    const { events } = await drain(
      cursor,
      {
        p: project.id,
        types: ['document.published', 'document.indexed', 'document.superseded', 'document.failed'],
      },
      7,
    );
    const seen = events.map((e) => `${e.type} ${e.subject.id}`);
    const expected = [
      `document.published ${v1}`,
      `document.indexed ${v1}`,
      `document.published ${v2}`,
      `document.superseded ${v1}`,
      `document.indexed ${v2}`,
      `document.published ${broken}`,
      `document.failed ${broken}`,
    ];
    expect([...seen].sort()).toEqual([...expected].sort());
    // Order where one change caused the other; v2's and the broken file's jobs may interleave.
    const order = (a: string, b: string) => expect(seen.indexOf(a)).toBeLessThan(seen.indexOf(b));
    order(expected[0], expected[1]);
    order(expected[1], expected[2]);
    order(expected[2], expected[4]);
    order(expected[3], expected[5]);
    order(expected[5], expected[6]);
    const indexed = events.find((e) => e.type === 'document.indexed');
    expect(indexed.changes).toEqual(
      expect.arrayContaining([
        { field: 'status', before: 'processing', after: 'completed' },
        { field: 'page_count', before: 0, after: 1 },
      ]),
    );
    const published = events.find((e) => e.type === 'document.published' && e.subject.id === v2);
    expect(published.changes).toHaveLength(4);
    expect(published.changes).toEqual(
      expect.arrayContaining([
        { field: 'name', before: null, after: 'v2.pdf' },
        { field: 'category', before: null, after: 'price-list' },
        { field: 'type', before: null, after: null },
        { field: 'supersedes_id', before: null, after: v1 },
      ]),
    );
    expect(events.find((e) => e.type === 'document.superseded').changes).toEqual([
      { field: 'is_latest', before: true, after: false },
    ]);
  });

  it('pages to the end visiting every event once, and filters by type and project', async () => {
    const a = await createProject(t);
    const b = await createProject(t);
    for (const id of [a.id, b.id, a.id])
      await sql(`update project set storeys = coalesce(storeys, 0) + 1 where id = ?`, [id]);
    // Until the feed gives these events (it holds them back while an older transaction on the
    // server runs), a page read later could hold them after the end of this one.
    await drain(null, { p: a.id }, 3);
    await drain(null, { p: b.id }, 2);
    const all = await drain(null);
    expect(new Set(all.events.map((e) => e.id)).size).toBe(all.events.length);
    const ids = all.events.map((e) => BigInt(e.id));
    expect(ids.length).toBeGreaterThan(5);
    const onlyA = await drain(null, { p: a.id, types: ['project.changed'] }, 2);
    expect(onlyA.events.map((e) => e.subject.id)).toEqual([a.id, a.id]);
    const again = await read(all.cursor);
    expect(again).toMatchObject({ data: [], meta: { returned: 0, nextCursor: all.cursor, hasMore: false } });
  });

  it('orders transaction ids as numbers: a page past tx 9 still has tx 10 and 100, each once', async () => {
    // Ids with fewer digits sort after longer ones as text ("9" > "10"); the feed must not.
    const fake = 2_147_480_000;
    for (const tx of ['100', '9', '10']) {
      await sql(
        `insert into change_event (tx, type, subject_type, subject_id, project_id, changes)
         values (?::text::xid8, 'project.changed', 'project', ?, ?, '{}')`,
        [tx, fake, fake],
      );
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 10; i++) {
      const page = await read(cursor, { first: 1, p: fake });
      seen.push(...page.data.map((e: any) => e.id));
      cursor = page.meta.nextCursor;
      if (!page.meta.hasMore) break;
    }
    const ids = (
      await sql(`select id::text as id from change_event where project_id = ? order by change_event.tx`, [
        fake,
      ])
    ).map((r: any) => r.id);
    expect(seen).toEqual(ids);
    expect(ids).toHaveLength(3);
    await sql('delete from change_event where project_id = ?', [fake]);
  });

  it('refuses bad arguments with the field named', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ after: 'not-a-cursor' }, /after: is not a cursor/],
      [{ first: 201 }, /first: must be an integer from 1 to 200/],
      [{ first: 0 }, /first: must be an integer from 1 to 200/],
      [{ types: ['project.deleted'] }, /types.0: must be one of/],
      [{ p: 0 }, /projectId: must be an integer id from 1 to 2147483647/],
    ];
    for (const [vars, message] of cases) {
      const res = await t.gql(FEED, vars, tokens.pro);
      expect(res.errors?.[0]?.message).toMatch(message);
      expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
  });

  it('is for Pro and Elite; an API key needs the changes scope', async () => {
    const essential = await t.gql(FEED, {}, tokens.essential);
    expect(essential.errors?.[0]?.extensions?.appCode).toBe('PLAN_UPGRADE_REQUIRED');
    const without = await createApiKey(t, proTeam, ['building-links']);
    const refused = await t.gql(FEED, {}, without.secret);
    expect(refused.errors?.[0]?.extensions?.appCode).toBe('SCOPE_MISSING');
    const withScope = await createApiKey(t, proTeam, ['changes']);
    const ok = await t.gql(FEED, { first: 1 }, withScope.secret);
    expect(ok.errors).toBeUndefined();
    expect(ok.data.changes.meta.returned).toBe(1);
    const anonymous = await t.gql(FEED, {});
    expect(anonymous.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});

const databaseUrl = process.env.DATABASE_URL;
// Needs two connections with open transactions at once; the embedded PGlite has one connection.
describeWith(!!databaseUrl, 'needs a PostgreSQL server (DATABASE_URL)')(
  'the change feed with concurrent writers (PostgreSQL)',
  () => {
    it('holds back events behind a running transaction, so none commits behind a cursor already handed out', async () => {
      const project = await createProject(t);
      const other = await createProject(t);
      // Both creations are out before the cursor is taken: the feed may still hold them back.
      await drain(null, { p: project.id }, 1);
      await drain(null, { p: other.id }, 1);
      const { cursor } = await drain(null);
      const slow = new pg.Client({ connectionString: t.config.databaseUrl! });
      await slow.connect();
      try {
        await slow.query('begin');
        // The slow transaction writes first (lower event id) and commits last.
        await slow.query(`update project set storeys = 10 where id = $1`, [project.id]);
        await sql(`update project set total_units = 99 where id = ?`, [other.id]);
        const during = await drain(cursor);
        expect(during.events).toEqual([]);
        expect(during.cursor).toBe(cursor);
        await slow.query('commit');
        const after = await drain(cursor, {}, 2);
        expect(after.events.map((e) => e.changes.map((c: any) => c.field))).toEqual([
          ['storeys'],
          ['total_units'],
        ]);
      } finally {
        await slow.end();
      }
    });
  },
);
