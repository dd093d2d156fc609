import { ChangeEventPruner } from '../../../src/changes/retention.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { createProject, createTeam } from '../../support/factories.js';

/**
 * Change event retention (CHANGE_EVENT_RETENTION_DAYS): events older than it are deleted oldest
 * first, never one the webhook fan-out has not passed or whose delivery is still pending, and a feed
 * cursor before what is kept is refused rather than skipping the deleted events.
 */
let t: TestApp;

const FEED = `query($after: String, $first: Int) { changes(after: $after, first: $first) {
  data { id type subject { id } } meta { nextCursor hasMore } } }`;

async function feed(after: string | null, first = 200) {
  const res = await t.gql<any>(FEED, { after, first }, t.operator);
  return res;
}

const sql = (text: string, params: unknown[] = []) =>
  t.app.deps.em.fork().getConnection().execute(text, params);

/** Ages every event up to and including `id` (in the feed's order) past the retention. */
async function age(id: string) {
  await sql(
    `update change_event set occurred_at = now() - interval '40 days'
      where (tx, id) <= (select tx, id from change_event where id = ?)`,
    [id],
  );
}

async function eventIds(): Promise<string[]> {
  const rows = await sql('select id::text as id from change_event order by change_event.tx, change_event.id');
  return rows.map((r: any) => r.id);
}

/** Every event the feed has now, read from the start, and the cursor after the last. */
async function readAll() {
  const res = await feed(null);
  return {
    ids: res.data.changes.data.map((e: any) => e.id as string),
    cursor: res.data.changes.meta.nextCursor,
  };
}

/**
 * Runs the webhook fan-out until it has passed every event and the feed gives them all. Both hold
 * events back while any older transaction in the cluster still runs (other test files' databases
 * share the server), so this waits, bounded, instead of reading too early.
 */
async function settle() {
  const deadline = Date.now() + 20_000;
  for (;;) {
    await t.app.webhooks.runOnce();
    const ids = await eventIds();
    const [position] = await sql('select event_id::text as id from webhook_dispatch where id = 1');
    const fed = (await readAll()).ids;
    if ((position?.id === ids.at(-1) && fed.length === ids.length) || Date.now() > deadline) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  t = await startTestApp({ CHANGE_EVENT_RETENTION_DAYS: '30' });
});
afterAll(async () => {
  await t.close();
});

describe('change event retention', () => {
  it('deletes events past the retention, oldest first, and refuses a cursor before what is kept', async () => {
    const first = await createProject(t, { name: 'Kept Then Pruned 1' });
    await settle();
    const early = await feed(null, 1);
    const afterFirst = early.data.changes.meta.nextCursor as string;
    for (let i = 2; i <= 5; i++) await createProject(t, { name: `Kept Then Pruned ${i}` });
    await settle();
    const all = await readAll();
    expect(all.ids.length).toBeGreaterThanOrEqual(5);

    // Nothing is old enough yet.
    expect(await t.app.changeEvents.runOnce()).toBe(0);
    expect(await eventIds()).toEqual(all.ids);

    // The first three (and anything before them) age past the retention.
    const third = all.ids[all.ids.length - 3];
    await age(third);
    const deleted = await t.app.changeEvents.runOnce();
    expect(deleted).toBe(all.ids.length - 2);
    expect(await eventIds()).toEqual(all.ids.slice(-2));
    const [horizon] = await sql('select event_id::text as id, pruned_at from change_event_horizon');
    expect(horizon.id).toBe(third);
    expect(horizon.pruned_at).not.toBeNull();

    // A reader that stopped before the horizon is told, not silently skipped past the deleted events.
    const stale = await feed(afterFirst);
    expect(stale.errors?.[0]).toMatchObject({
      message: expect.stringMatching(/older than the events the feed keeps/),
      extensions: { code: 'BAD_USER_INPUT' },
    });
    // One that had read everything goes on; a new one starts from what is kept.
    const current = await feed(all.cursor);
    expect(current.errors).toBeUndefined();
    expect((await readAll()).ids).toEqual(all.ids.slice(-2));
    expect(first.id).toBeGreaterThan(0);

    // Over REST the same refusal names the cursor.
    const team = await createTeam(t, { plan: 'pro' });
    const { createApiKey } = await t.op<any>(
      `mutation($t: Int!) { createApiKey(input: {teamId: $t, name: "feed", scopes: ["changes"]}) { secret } }`,
      { t: team.id },
    );
    const rest = await t.request('GET', `/api/v1/changes?cursor=${afterFirst}`, {
      headers: { authorization: `Bearer ${createApiKey.secret}` },
    });
    expect([rest.status, Object.keys(rest.json.errors)]).toEqual([422, ['cursor']]);
  });

  it('keeps an event whose webhook delivery is still pending, and everything after it', async () => {
    const team = await createTeam(t, { plan: 'pro' });
    // An address that never answers here: its delivery stays pending, waiting for a retry.
    await t.op(
      `mutation($i: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $i) { endpoint { id } } }`,
      { i: { teamId: team.id, url: 'https://hooks.example.invalid/pds', eventTypes: ['project.changed'] } },
    );
    const p = await createProject(t, { name: 'Pending Delivery' });
    await sql(`update project set sales_status = 'selling' where id = ?`, [p.id]);
    const q = await createProject(t, { name: 'After The Pending One' });
    await settle();
    const [pending] = await sql(
      `select d.event_id::text as id, d.status from webhook_delivery d join change_event e on e.id = d.event_id
        where e.subject_id = ? and e.type = 'project.changed'`,
      [p.id],
    );
    expect(pending.status).toBe('pending');
    const ids = await eventIds();
    await age(ids.at(-1)!);
    await t.app.changeEvents.runOnce();
    const left = await sql(
      `select type, subject_id from change_event order by change_event.tx, change_event.id`,
    );
    expect(left.map((r: any) => [r.type, r.subject_id])).toEqual([
      ['project.changed', p.id],
      ['project.created', q.id],
    ]);
  });

  it('keeps every event with a retention of 0', async () => {
    const pool = await t.app.deps.em.getConnection('write').getNativeClient();
    const keepAll = new ChangeEventPruner(pool, 0, {
      info: () => undefined,
      error: () => undefined,
    } as never);
    const before = await eventIds();
    await age(before.at(-1)!);
    expect(await keepAll.runOnce()).toBe(0);
    expect(await eventIds()).toEqual(before);
  });
});
