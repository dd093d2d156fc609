import { startTestApp, OPERATOR_TOKEN, type TestApp } from '../../support/app.js';
import { createApiKey, createTeam, createProject } from '../../support/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const count = async (table: string): Promise<number> =>
  Number(
    (await t.app.deps.em.fork().getConnection().execute(`select count(*)::int as n from ${table}`))[0].n,
  );

describe('operator contract', () => {
  it('creates the whole chain: team, user, membership, project, building, floor plan, key, token', async () => {
    const team = await t.op(
      `mutation { createTeam(input: {name: "Acme Realty", plan: pro, agentTier: agent, subscriptionStatus: active}) { id name plan agentTier subscriptionStatus } }`,
    );
    expect(team.createTeam).toMatchObject({
      name: 'Acme Realty',
      plan: 'pro',
      agentTier: 'agent',
      subscriptionStatus: 'active',
    });
    const teamId = team.createTeam.id;
    const updated = await t.op(
      `mutation($id: Int!) { updateTeam(id: $id, input: {plan: elite}) { plan agentTier } }`,
      { id: teamId },
    );
    expect(updated.updateTeam).toEqual({ plan: 'elite', agentTier: 'agent' });

    const user = await t.op(
      `mutation { createUser(input: {email: "Ada@Example.com", name: "Ada", password: "long enough pw"}) { id email name } }`,
    );
    expect(user.createUser).toMatchObject({ email: 'ada@example.com', name: 'Ada' });
    const m = await t.op(
      `mutation($t: Int!, $u: Int!) { addMembership(input: {teamId: $t, userId: $u, role: admin}) { role team { id } user { id } } }`,
      {
        t: teamId,
        u: user.createUser.id,
      },
    );
    expect(m.addMembership).toEqual({
      role: 'admin',
      team: { id: teamId },
      user: { id: user.createUser.id },
    });

    const project = await createProject(t, {
      name: 'Harbour Lights',
      city: 'Toronto',
      developerName: 'Lakeview Homes',
      storeys: 40,
    });
    const b = await t.op(
      `mutation($p: Int!) { createBuilding(input: {projectId: $p, name: "Tower A", addresses: ["1 Harbour St"], mlsBuildingKey: "MLS-1"}) { id name addresses mlsBuildingKey } }`,
      { p: project.id },
    );
    expect(b.createBuilding).toMatchObject({
      name: 'Tower A',
      addresses: ['1 Harbour St'],
      mlsBuildingKey: 'MLS-1',
    });
    const fp = await t.op(
      `mutation($p: Int!, $b: Int!) { createFloorPlan(input: {projectId: $p, buildingId: $b, name: "The Aria", bedrooms: 1, dens: 1, bathrooms: 1.5, interiorSqft: 640, exposure: "sw", floorMin: 5, floorMax: 30, stacks: ["04", "05"]}) { id name exposure stacks bathrooms } }`,
      { p: project.id, b: b.createBuilding.id },
    );
    expect(fp.createFloorPlan).toMatchObject({
      name: 'The Aria',
      exposure: 'SW',
      stacks: ['04', '05'],
      bathrooms: 1.5,
    });

    const key = await t.op(
      `mutation($t: Int!) { createApiKey(input: {teamId: $t, name: "integration", scopes: ["building-links", "floorplan-match"]}) { apiKey { id name prefix scopes revokedAt } secret } }`,
      { t: teamId },
    );
    expect(key.createApiKey.secret).toMatch(/^pds_key_[0-9A-Za-z]{36}$/);
    expect(key.createApiKey.apiKey).toMatchObject({
      scopes: ['building-links', 'floorplan-match'],
      revokedAt: null,
    });
    expect(key.createApiKey.secret.startsWith(key.createApiKey.apiKey.prefix)).toBe(true);
    const revoked = await t.op(`mutation($id: Int!) { revokeApiKey(id: $id) { revokedAt } }`, {
      id: key.createApiKey.apiKey.id,
    });
    expect(revoked.revokeApiKey.revokedAt).toBeTruthy();

    const token = await t.op(
      `mutation($t: Int!, $u: Int!) { createAccessToken(input: {teamId: $t, userId: $u, name: "claude"}) { accessToken { id kind name } secret } }`,
      { t: teamId, u: user.createUser.id },
    );
    expect(token.createAccessToken.secret).toMatch(/^pds_mcp_/);
    expect(token.createAccessToken.accessToken).toMatchObject({ kind: 'personal', name: 'claude' });
  });

  it('refuses operator mutations from anyone else with FORBIDDEN and writes nothing', async () => {
    const team = await createTeam(t, { plan: 'elite' });
    const key = await createApiKey(t, team.id, ['building-links']);
    const before = await count('team');
    const res = await t.gql(
      `mutation { createTeam(input: {name: "x", plan: elite}) { id } }`,
      {},
      key.secret,
    );
    expect(res.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const anon = await t.gql(`mutation { createTeam(input: {name: "x", plan: elite}) { id } }`);
    expect(anon.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(await count('team')).toBe(before);
  });

  it.each([
    ['invalid enum value', `mutation { createTeam(input: {name: "x", plan: platinum}) { id } }`, /platinum/],
    [
      'empty name',
      `mutation { createTeam(input: {name: "  ", plan: pro}) { id } }`,
      /^name: must not be empty/,
    ],
    [
      'bad email',
      `mutation { createUser(input: {email: "nope", name: "N", password: "long enough"}) { id } }`,
      /^email:/,
    ],
    [
      'short password',
      `mutation { createUser(input: {email: "a@b.co", name: "N", password: "x"}) { id } }`,
      /^password:/,
    ],
    [
      'unknown team',
      `mutation { createApiKey(input: {teamId: 999999, name: "k", scopes: []}) { secret } }`,
      /^teamId: no team/,
    ],
    [
      'bad scope',
      `mutation { createApiKey(input: {teamId: 1, name: "k", scopes: ["everything"]}) { secret } }`,
      /^scopes\.0:/,
    ],
    [
      'unknown project',
      `mutation { createBuilding(input: {projectId: 999999, name: "B"}) { id } }`,
      /^projectId:/,
    ],
    [
      'past expiry',
      `mutation { createApiKey(input: {teamId: 1, name: "k", scopes: [], expiresAt: "2001-01-01T00:00:00Z"}) { secret } }`,
      /^expiresAt:/,
    ],
    ['non-positive id', `mutation { revokeApiKey(id: 0) { id } }`, /^id:/],
  ])('%s → BAD_USER_INPUT naming the field, nothing written', async (_name, mutation, message) => {
    await createTeam(t, { plan: 'pro' });
    const tables = ['team', 'app_user', 'api_key', 'building'];
    const before = await Promise.all(tables.map(count));
    const res = await t.gql(mutation, {}, OPERATOR_TOKEN);
    expect(res.data?.createTeam ?? null).toBeNull();
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors?.[0]?.message).toMatch(message);
    expect(await Promise.all(tables.map(count))).toEqual(before);
  });

  it('duplicate emails are refused', async () => {
    const q = `mutation { createUser(input: {email: "dup@example.com", name: "D", password: "long enough"}) { id } }`;
    expect((await t.gql(q, {}, OPERATOR_TOKEN)).errors).toBeUndefined();
    const again = await t.gql(q.replace('dup@', 'DUP@'), {}, OPERATOR_TOKEN);
    expect(again.errors?.[0]).toMatchObject({
      message: 'email: is already registered',
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });

  it('malformed GraphQL gets a 400 with GraphQL errors', async () => {
    const res = await t.gql(`{ projects { items { id } `, {}, OPERATOR_TOKEN);
    expect(res.status).toBe(400);
    expect(res.errors?.[0]?.extensions?.code).toBe('GRAPHQL_PARSE_FAILED');
    const unknown = await t.gql(`{ nope }`, {}, OPERATOR_TOKEN);
    expect(unknown.status).toBe(400);
  });

  it('refuses queries deeper than the limit', async () => {
    const deep = `{ projects { items { buildings { project { buildings { project { buildings { project { buildings { project { name } } } } } } } } } } }`;
    const res = await t.gql(deep, {}, OPERATOR_TOKEN);
    expect(res.status).toBe(400);
    expect(res.errors?.[0]?.message).toMatch(/depth/);
  });
});
