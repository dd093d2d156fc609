import { startTestApp, type TestApp } from '../../support/app.js';
import {
  addMember,
  createAccessToken,
  createApiKey,
  createProject,
  createTeam,
  createUser,
} from '../../support/factories.js';
import { signIn } from '../settings/session-graphql.js';

let t: TestApp;
let buildingId: number;
beforeAll(async () => {
  // A write interval no test waits for: the counts reach the table only when a test flushes.
  t = await startTestApp({ USAGE_FLUSH_INTERVAL_MS: '60000' });
  const project = await createProject(t);
  const { createBuilding } = await t.op<{ createBuilding: { id: number } }>(
    `mutation($p: Int!) { createBuilding(input: {projectId: $p, name: "Tower B"}) { id } }`,
    { p: project.id },
  );
  buildingId = createBuilding.id;
});
afterAll(async () => {
  await t.close();
});

const USAGE = `query($t: Int!, $d: Int) { teamUsage(teamId: $t, days: $d) {
  days totals credentials { kind id name prefix tokenKind total daily }
  windows { apiKeyId apiKeyName scope limit remaining resetSeconds } } }`;

async function buildingLink(secret: string): Promise<number> {
  return (
    await t.request('GET', `/api/v1/building-links/${buildingId}`, {
      headers: { authorization: `Bearer ${secret}` },
    })
  ).status;
}

async function rowsFor(teamId: number): Promise<number> {
  const rows = await t.app.db.orm.em
    .getConnection()
    .execute<{ n: string }[]>(`select count(*)::text as n from credential_usage_day where team_id = ?`, [
      teamId,
    ]);
  return Number(rows[0].n);
}

describe('usage per key and token', () => {
  it('counts in memory on the request path and writes in the background; GraphQL reads the written figures', async () => {
    const team = await createTeam(t, { plan: 'pro' });
    const key = await createApiKey(t, team.id, ['building-links']);
    for (let i = 0; i < 3; i++) expect(await buildingLink(key.secret)).toBe(200);
    // Nothing written yet: the request path added no row.
    expect(await rowsFor(team.id)).toBe(0);
    await t.app.deps.usage.flush();
    expect(await rowsFor(team.id)).toBe(1);

    expect(await buildingLink(key.secret)).toBe(200);
    await t.app.deps.usage.flush();
    const { teamUsage } = await t.op(USAGE, { t: team.id });
    expect(teamUsage.days).toHaveLength(30);
    expect(teamUsage.days.at(-1)).toBe(new Date().toISOString().slice(0, 10));
    expect(teamUsage.totals.at(-1)).toBe(4);
    expect(teamUsage.credentials).toEqual([
      expect.objectContaining({ kind: 'api-key', id: key.id, total: 4, tokenKind: null }),
    ]);
    expect(teamUsage.credentials[0].daily.slice(0, 29)).toEqual(Array(29).fill(0));
    expect(teamUsage.windows).toEqual([
      expect.objectContaining({ apiKeyId: key.id, scope: 'building-links', limit: 120, remaining: 116 }),
    ]);
    expect(teamUsage.windows[0].resetSeconds).toBeGreaterThan(0);
  });

  it('counts MCP tokens too; refused requests and other teams are not counted', async () => {
    const team = await createTeam(t, { plan: 'pro' });
    const user = await createUser(t);
    await addMember(t, team.id, user.id);
    const token = await createAccessToken(t, team.id, user.id);
    const keyWithoutScope = await createApiKey(t, team.id, []);
    const other = await createTeam(t, { plan: 'pro' });
    const otherKey = await createApiKey(t, other.id, ['building-links']);
    const mcp = await t.request('POST', '/mcp', {
      headers: {
        authorization: `Bearer ${token.secret}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(200);
    expect(await buildingLink(keyWithoutScope.secret)).toBe(403);
    expect(await buildingLink(otherKey.secret)).toBe(200);
    await t.app.deps.usage.flush();
    const { teamUsage } = await t.op(USAGE, { t: team.id, d: 7 });
    expect(teamUsage.days).toHaveLength(7);
    expect(
      teamUsage.credentials.map((c: { kind: string; id: number; total: number }) => [c.kind, c.id, c.total]),
    ).toEqual([['access-token', token.id, 1]]);
    // No window for a key without a Fusion scope.
    expect(teamUsage.windows).toEqual([]);
  });

  it('members see the usage; a key, a token and another team do not; days out of range are refused', async () => {
    const team = await createTeam(t, { plan: 'pro' });
    const member = await createUser(t);
    await addMember(t, team.id, member.id, 'member');
    const session = await signIn(t, member);
    expect((await session.gql(USAGE, { t: team.id })).errors).toBeUndefined();
    const other = await createTeam(t, { plan: 'pro' });
    expect((await session.gql(USAGE, { t: other.id })).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const key = await createApiKey(t, team.id, ['building-links']);
    expect((await t.gql(USAGE, { t: team.id }, key.secret)).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const bad = await session.gql(USAGE, { t: team.id, d: 31 });
    expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(bad.errors?.[0]?.message).toMatch(/^days: must be an integer from 1 to 30/);
  });
});

describe('usage writes in the background', () => {
  it('reaches PostgreSQL within the write interval without any flush by hand', async () => {
    const quick = await startTestApp({ USAGE_FLUSH_INTERVAL_MS: '200' });
    try {
      const team = await createTeam(quick, { plan: 'pro' });
      const key = await createApiKey(quick, team.id, ['building-links']);
      const project = await createProject(quick);
      const { createBuilding } = await quick.op<{ createBuilding: { id: number } }>(
        `mutation($p: Int!) { createBuilding(input: {projectId: $p, name: "Tower C"}) { id } }`,
        { p: project.id },
      );
      const res = await quick.request('GET', `/api/v1/building-links/${createBuilding.id}`, {
        headers: { authorization: `Bearer ${key.secret}` },
      });
      expect(res.status).toBe(200);
      let total = 0;
      for (let i = 0; i < 100 && total === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        total = (await quick.op(USAGE, { t: team.id })).teamUsage.totals.at(-1);
      }
      expect(total).toBe(1);
    } finally {
      await quick.close();
    }
  });
});
