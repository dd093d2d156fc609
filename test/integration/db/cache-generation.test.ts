import { createApp, type App } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { startTestApp, OPERATOR_TOKEN, type TestApp } from '../../support/app.js';
import { createAccessToken, createApiKey, createProject, createTeam } from '../../support/factories.js';
import { describeWith } from '../../support/requirements.js';

/**
 * Credentials and the Fusion catalogue are cached per node by generation (src/db/generation.ts):
 * a change committed anywhere, by anyone, shows on the next request. Changes here are made with
 * plain SQL, around the app, as another node or psql would.
 */
async function sql(t: TestApp, text: string, params: unknown[] = []): Promise<void> {
  await t.app.db.orm.em.fork().getConnection().execute(text, params);
}

interface SecondNode {
  start(databaseUrl: string): Promise<string>;
  close(): Promise<void>;
}

function suite(second: SecondNode | null) {
  let t: TestApp;
  let key: { id: number; secret: string };
  let teamId: number;
  let buildingId: number;

  const link = (base: string, secret = key.secret) =>
    fetch(`${base}/api/v1/building-links/${buildingId}`, { headers: { authorization: `Bearer ${secret}` } });
  let secondUrl: string | null = null;
  const bases = () => [t.url, ...(secondUrl ? [secondUrl] : [])];

  beforeAll(async () => {
    t = await startTestApp();
    const team = await createTeam(t, { plan: 'pro' });
    teamId = team.id;
    key = await createApiKey(t, team.id, ['building-links', 'floorplan-match']);
    const project = await createProject(t);
    buildingId = (
      await t.op(`mutation($p: Int!) { createBuilding(input: {projectId: $p, name: "Old name"}) { id } }`, {
        p: project.id,
      })
    ).createBuilding.id;
    if (second) secondUrl = await second.start(t.config.databaseUrl!);
  });
  afterAll(async () => {
    await second?.close();
    await t.close();
  });

  it('a catalogue change shows on the next request on every node', async () => {
    for (const base of bases())
      expect(((await (await link(base)).json()) as { building: { name: string } }).building.name).toBe(
        'Old name',
      );
    await sql(t, 'update building set name = ? where id = ?', ['New name', buildingId]);
    for (const base of bases())
      expect(((await (await link(base)).json()) as { building: { name: string } }).building.name).toBe(
        'New name',
      );
  });

  it('a scope removed, a plan downgraded or a key revoked bites on the next request on every node', async () => {
    for (const base of bases()) expect((await link(base)).status).toBe(200);
    await sql(t, `update api_key set scopes = '{floorplan-match}' where id = ?`, [key.id]);
    for (const base of bases()) expect((await link(base)).status).toBe(403);
    await sql(t, `update api_key set scopes = '{building-links}' where id = ?`, [key.id]);
    for (const base of bases()) expect((await link(base)).status).toBe(200);
    await sql(t, `update team set plan = 'essential' where id = ?`, [teamId]);
    for (const base of bases()) expect((await link(base)).status).toBe(403);
    await sql(t, `update team set plan = 'pro' where id = ?`, [teamId]);
    for (const base of bases()) expect((await link(base)).status).toBe(200);
    await sql(t, 'update api_key set revoked_at = now() where id = ?', [key.id]);
    for (const base of bases()) expect((await link(base)).status).toBe(401);
  });

  it('a deleted token is refused on the next request, and stamping last use changes no generation', async () => {
    const token = await createAccessToken(t, teamId);
    const [{ auth: before }] = await t.app.db.orm.em
      .fork()
      .getConnection()
      .execute<{ auth: string }[]>('select auth::text from cache_generation');
    const mcp = (base: string) =>
      fetch(`${base}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token.secret}`,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
    for (const base of bases()) expect((await mcp(base)).status).toBe(200);
    const [{ auth: after }] = await t.app.db.orm.em
      .fork()
      .getConnection()
      .execute<{ auth: string }[]>('select auth::text from cache_generation');
    expect(after).toBe(before);
    await sql(t, 'delete from access_token where id = ?', [token.id]);
    for (const base of bases()) expect((await mcp(base)).status).toBe(401);
  });
}

describe('cache generations, one node', () => suite(null));

const postgres = describeWith(!!process.env.DATABASE_URL, 'two nodes need a real PostgreSQL (DATABASE_URL)');

postgres('cache generations, two nodes on one PostgreSQL', () => {
  let second: App;
  suite({
    async start(databaseUrl) {
      second = await createApp(
        loadConfig({
          DATABASE_URL: databaseUrl,
          RATE_LIMIT_STORE: 'memory',
          PDS_ADMIN_TOKEN: OPERATOR_TOKEN,
          LOG_LEVEL: 'silent',
          DEMO_SEED: 'off',
        }),
        { logger: false, worker: false },
      );
      await second.server.listen({ host: '127.0.0.1', port: 0 });
      return `http://127.0.0.1:${(second.server.addresses()[0] as { port: number }).port}`;
    },
    close: () => second.close(),
  });
});
