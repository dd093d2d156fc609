import { startTestApp, type TestApp } from '../../support/app.js';
import {
  addMember,
  createAccessToken,
  createApiKey,
  createTeam,
  createUser,
} from '../../support/factories.js';
import { signIn } from './session-graphql.js';

/**
 * Per-key limits must not multiply: a rolled key is charged to its predecessor's window, and a
 * team holds at most 25 active API keys (rate windows) and 100 active personal MCP access tokens.
 * The numbers are written here literally.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const CREATE_KEY = `mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { apiKey { id } secret } }`;
const ROLL_KEY = `mutation($id: Int!, $s: Int!) { rollApiKey(id: $id, expiresInSeconds: $s) { apiKey { id } secret } }`;
const REVOKE_KEY = `mutation($id: Int!) { revokeApiKey(id: $id) { id } }`;
const CREATE_TOKEN = `mutation($input: CreateAccessTokenInput!) { createAccessToken(input: $input) { accessToken { id } secret } }`;

const remaining = async (key: string) =>
  (
    await t.request('GET', '/api/v1/building-links/1', { headers: { authorization: `Bearer ${key}` } })
  ).headers.get('x-ratelimit-remaining');

describe('a rolled key', () => {
  it("is charged to its predecessor's window during the overlap, and so is the next roll", async () => {
    const team = await createTeam(t, { plan: 'pro' });
    const old = await createApiKey(t, team.id, ['building-links']);
    expect(await remaining(old.secret)).toBe('119');
    const rolled = (await t.op(ROLL_KEY, { id: old.id, s: 600 })).rollApiKey;
    expect(await remaining(rolled.secret)).toBe('118');
    expect(await remaining(old.secret)).toBe('117');
    const again = (await t.op(ROLL_KEY, { id: rolled.apiKey.id, s: 600 })).rollApiKey;
    expect(await remaining(again.secret)).toBe('116');
    // A key that was created, not rolled, has a window of its own.
    expect(await remaining((await createApiKey(t, team.id, ['building-links'])).secret)).toBe('119');
  });
});

describe('active API keys per team: at most 25', () => {
  it('the 26th is refused with a sentence; rolling at the ceiling works; revoking one makes room', async () => {
    const team = await createTeam(t, { plan: 'pro' });
    const keys = [];
    for (let i = 0; i < 25; i++) keys.push(await createApiKey(t, team.id, []));
    const refused = await t.gql(
      CREATE_KEY,
      { input: { teamId: team.id, name: 'one more', scopes: [] } },
      t.operator,
    );
    expect(refused.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    expect(refused.errors?.[0]?.message).toBe(
      `Team ${team.id} already has 25 active API keys, the most a team may hold: revoke one before creating another`,
    );
    // A roll keeps the count: the new key shares the old one's window.
    const rolled = await t.gql(ROLL_KEY, { id: keys[0].id, s: 600 }, t.operator);
    expect(rolled.errors).toBeUndefined();
    expect(
      (await t.gql(CREATE_KEY, { input: { teamId: team.id, name: 'x', scopes: [] } }, t.operator)).errors?.[0]
        ?.extensions?.code,
    ).toBe('CONFLICT');
    await t.op(REVOKE_KEY, { id: keys[1].id });
    const made = await t.gql(
      CREATE_KEY,
      { input: { teamId: team.id, name: 'room', scopes: [] } },
      t.operator,
    );
    expect(made.errors).toBeUndefined();
    // Another team is not affected.
    const other = await createTeam(t, { plan: 'pro' });
    expect((await createApiKey(t, other.id, [])).secret).toMatch(/^pds_key_/);
  });

  it('concurrent creations cannot pass the ceiling together', async () => {
    const team = await createTeam(t, { plan: 'pro' });
    for (let i = 0; i < 23; i++) await createApiKey(t, team.id, []);
    const results = await Promise.all(
      [1, 2, 3, 4].map((i) =>
        t.gql(CREATE_KEY, { input: { teamId: team.id, name: `race ${i}`, scopes: [] } }, t.operator),
      ),
    );
    expect(results.filter((r) => !r.errors).length).toBe(2);
    expect(results.filter((r) => r.errors?.[0]?.extensions?.code === 'CONFLICT').length).toBe(2);
  });

  it('the settings page refuses the form with the same sentence', async () => {
    const team = await createTeam(t, { plan: 'pro' });
    const admin = await createUser(t);
    await addMember(t, team.id, admin.id, 'admin');
    for (let i = 0; i < 25; i++) await createApiKey(t, team.id, []);
    const { cookie } = await signIn(t, admin);
    const page = await t.request('GET', `/settings/api-keys?team=${team.id}`, { headers: { cookie } });
    // The create form's hidden fields: its nonce and the token that follows it (not the sign-out form's).
    const [, nonce, token] =
      /name="nonce" value="([^"]+)" \/>\s*<input type="hidden" name="token" value="([^"]+)"/.exec(page.text)!;
    const res = await t.request('POST', '/settings/api-keys', {
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        team: String(team.id),
        nonce,
        token,
        name: 'one more',
      }).toString(),
    });
    expect(res.status).toBe(409);
    expect(res.text).toContain(
      `Team ${team.id} already has 25 active API keys, the most a team may hold: revoke one before creating another. Nothing was changed.`,
    );
  });
});

describe('active personal MCP access tokens per team: at most 100', () => {
  it('the 101st is refused; an expired or revoked one does not count', async () => {
    const team = await createTeam(t, { plan: 'pro' });
    const user = await createUser(t);
    await addMember(t, team.id, user.id);
    const tokens = [];
    for (let i = 0; i < 100; i++) tokens.push(await createAccessToken(t, team.id, user.id));
    const refused = await t.gql(
      CREATE_TOKEN,
      { input: { teamId: team.id, userId: user.id, name: 'one more' } },
      t.operator,
    );
    expect(refused.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    expect(refused.errors?.[0]?.message).toBe(
      `Team ${team.id} already has 100 active MCP access tokens, the most a team may hold: revoke one before creating another`,
    );
    await t.op(`mutation($id: Int!) { revokeAccessToken(id: $id) { id } }`, { id: tokens[0].id });
    expect((await createAccessToken(t, team.id, user.id)).secret).toMatch(/^pds_mcp_/);
  });
});
