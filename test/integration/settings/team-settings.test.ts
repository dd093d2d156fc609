import { startTestApp, type TestApp } from '../../support/app.js';
import {
  addMember,
  createAccessToken,
  createApiKey,
  createTeam,
  createUser,
} from '../../support/factories.js';
import { signIn, type SignedIn } from './session-graphql.js';

let t: TestApp;
/** The app's clock: real time plus what a test moved it forward by (no waiting for expiry). */
let skewMs = 0;
beforeAll(async () => {
  t = await startTestApp({}, { clock: () => new Date(Date.now() + skewMs) });
});
afterAll(async () => {
  await t.close();
});

const VIEWER = `{ viewer { credentialKind team { id } } }`;
const API_KEYS = `query($t: Int!, $all: Boolean) { apiKeys(teamId: $t, includeInactive: $all) { id name prefix scopes expiresAt revokedAt } }`;
const CREATE_KEY = `mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { apiKey { id name prefix scopes } secret } }`;
const REVOKE_KEY = `mutation($id: Int!) { revokeApiKey(id: $id) { id revokedAt } }`;
const ROLL_KEY = `mutation($id: Int!, $s: Int!) { rollApiKey(id: $id, expiresInSeconds: $s) { apiKey { id name scopes } secret } }`;
const TOKENS = `query($t: Int!) { accessTokens(teamId: $t) { id kind name prefix revokedAt } }`;
const CREATE_TOKEN = `mutation($input: CreateAccessTokenInput!) { createAccessToken(input: $input) { accessToken { id kind } secret } }`;
const REVOKE_TOKEN = `mutation($id: Int!) { revokeAccessToken(id: $id) { id revokedAt } }`;

async function teamWith(
  role: string,
  plan = 'pro',
): Promise<{ teamId: number; session: SignedIn; userId: number }> {
  const team = await createTeam(t, { plan });
  const user = await createUser(t);
  await addMember(t, team.id, user.id, role);
  return { teamId: team.id, userId: user.id, session: await signIn(t, user) };
}

/** Whether a secret still authenticates (the one context, through GraphQL). */
async function works(secret: string): Promise<boolean> {
  const res = await t.gql(VIEWER, {}, secret);
  return res.data?.viewer !== undefined && res.data?.viewer !== null;
}

const codeOf = (res: { errors?: { extensions?: Record<string, any> }[] }) =>
  res.errors?.[0]?.extensions?.code;

describe('team settings: API keys', () => {
  it('an admin creates a key (secret shown once), lists it without the secret and revokes it', async () => {
    const { teamId, session } = await teamWith('admin');
    const created = await session.gql(CREATE_KEY, {
      input: { teamId, name: 'ci', scopes: ['building-links', 'floorplan-match'] },
    });
    expect(created.errors).toBeUndefined();
    const { apiKey, secret } = created.data.createApiKey;
    expect(secret).toMatch(/^pds_key_/);
    expect(await works(secret)).toBe(true);

    const listed = await session.gql(API_KEYS, { t: teamId });
    expect(listed.data.apiKeys).toEqual([
      expect.objectContaining({ id: apiKey.id, name: 'ci', prefix: secret.slice(0, 12), revokedAt: null }),
    ]);
    expect(JSON.stringify(listed.data)).not.toContain(secret);
    const askSecret = await session.gql(`query($t: Int!) { apiKeys(teamId: $t) { secret } }`, { t: teamId });
    expect(askSecret.errors?.[0]?.message).toMatch(/Cannot query field "secret"/);

    const revoked = await session.gql(REVOKE_KEY, { id: apiKey.id });
    expect(revoked.data.revokeApiKey.revokedAt).toBeTruthy();
    expect(await works(secret)).toBe(false);
    expect((await session.gql(API_KEYS, { t: teamId })).data.apiKeys).toEqual([]);
    expect((await session.gql(API_KEYS, { t: teamId, all: true })).data.apiKeys).toHaveLength(1);
  });

  it('rolls a key: the new one works at once, the old one until the chosen expiry', async () => {
    const { teamId, session } = await teamWith('owner');
    const { data } = await session.gql(CREATE_KEY, {
      input: { teamId, name: 'prod', scopes: ['building-links'] },
    });
    const old = data.createApiKey;
    const rolled = await session.gql(ROLL_KEY, { id: old.apiKey.id, s: 2 });
    expect(rolled.errors).toBeUndefined();
    const fresh = rolled.data.rollApiKey;
    expect(fresh.secret).not.toBe(old.secret);
    expect(fresh.apiKey).toMatchObject({ name: 'prod', scopes: ['building-links'] });
    expect(await works(fresh.secret)).toBe(true);
    expect(await works(old.secret)).toBe(true);
    skewMs += 2100;
    expect(await works(old.secret)).toBe(false);
    expect(await works(fresh.secret)).toBe(true);

    const immediate = await session.gql(ROLL_KEY, { id: fresh.apiKey.id, s: 0 });
    expect(await works(immediate.data.rollApiKey.secret)).toBe(true);
    expect(await works(fresh.secret)).toBe(false);
  });

  it('refuses to roll with an out-of-range overlap or a revoked key', async () => {
    const { teamId, session } = await teamWith('admin');
    const { data } = await session.gql(CREATE_KEY, { input: { teamId, name: 'k', scopes: [] } });
    const id = data.createApiKey.apiKey.id;
    for (const s of [-1, 31 * 24 * 3600]) {
      const res = await session.gql(ROLL_KEY, { id, s });
      expect(codeOf(res)).toBe('BAD_USER_INPUT');
      expect(res.errors?.[0]?.message).toMatch(/^expiresInSeconds:/);
    }
    await session.gql(REVOKE_KEY, { id });
    expect((await session.gql(ROLL_KEY, { id, s: 60 })).errors?.[0]?.message).toMatch(/revoked or expired/);
  });

  it('Fusion scopes can be chosen only on Pro or Elite', async () => {
    const { teamId, session } = await teamWith('admin', 'essential');
    const scoped = await session.gql(CREATE_KEY, {
      input: { teamId, name: 'k', scopes: ['building-links'] },
    });
    expect(codeOf(scoped)).toBe('BAD_USER_INPUT');
    expect(scoped.errors?.[0]?.message).toMatch(/Pro or Elite/);
    const bare = await session.gql(CREATE_KEY, { input: { teamId, name: 'k', scopes: [] } });
    expect(bare.errors).toBeUndefined();
  });

  it('a member sees keys but cannot manage them, and nobody can manage another team’s keys', async () => {
    const member = await teamWith('member');
    const memberKey = await createApiKey(t, member.teamId, ['building-links']);
    const seen = await member.session.gql(API_KEYS, { t: member.teamId });
    expect(seen.data.apiKeys.map((k: { id: number }) => k.id)).toEqual([memberKey.id]);
    expect(
      codeOf(
        await member.session.gql(CREATE_KEY, { input: { teamId: member.teamId, name: 'x', scopes: [] } }),
      ),
    ).toBe('FORBIDDEN');
    expect(codeOf(await member.session.gql(REVOKE_KEY, { id: memberKey.id }))).toBe('FORBIDDEN');

    const admin = await teamWith('admin');
    const foreign = await createApiKey(t, member.teamId, ['building-links']);
    expect(codeOf(await admin.session.gql(API_KEYS, { t: member.teamId }))).toBe('FORBIDDEN');
    expect(
      codeOf(
        await admin.session.gql(CREATE_KEY, { input: { teamId: member.teamId, name: 'x', scopes: [] } }),
      ),
    ).toBe('FORBIDDEN');
    const revoke = await admin.session.gql(REVOKE_KEY, { id: foreign.id });
    expect(codeOf(revoke)).toBe('BAD_USER_INPUT');
    expect(revoke.errors?.[0]?.message).toMatch(/no API key/);
    expect(codeOf(await admin.session.gql(ROLL_KEY, { id: foreign.id, s: 0 }))).toBe('BAD_USER_INPUT');
    expect(await works(foreign.secret)).toBe(true);
  });

  it('keys and tokens are managed by a signed-in person: an admin’s MCP token cannot mint keys', async () => {
    const { teamId, userId } = await teamWith('owner');
    const token = await createAccessToken(t, teamId, userId);
    const res = await t.gql(CREATE_KEY, { input: { teamId, name: 'x', scopes: [] } }, token.secret);
    expect(codeOf(res)).toBe('FORBIDDEN');
    expect(res.errors?.[0]?.message).toMatch(/signed-in team owner or admin/);
    const key = await createApiKey(t, teamId, []);
    expect(codeOf(await t.gql(API_KEYS, { t: teamId }, key.secret))).toBe('FORBIDDEN');
  });
});

describe('team settings: a session acts for one team', () => {
  it('with several teams the session names one with X-Team-Id; a foreign team id is refused', async () => {
    const user = await createUser(t);
    const a = await createTeam(t, { plan: 'pro' });
    const b = await createTeam(t, { plan: 'elite' });
    await addMember(t, a.id, user.id, 'admin');
    await addMember(t, b.id, user.id, 'member');
    const session = await signIn(t, user);

    const noHeader = await session.gql(API_KEYS, { t: a.id });
    expect(codeOf(noHeader)).toBe('FORBIDDEN');
    expect((await session.gql(VIEWER)).data.viewer).toEqual({ credentialKind: 'session', team: null });

    expect((await session.gql(API_KEYS, { t: a.id }, a.id)).errors).toBeUndefined();
    expect((await session.gql(API_KEYS, { t: b.id }, b.id)).errors).toBeUndefined();
    const asMember = await session.gql(CREATE_KEY, { input: { teamId: b.id, name: 'x', scopes: [] } }, b.id);
    expect(codeOf(asMember)).toBe('FORBIDDEN');
    const stranger = await createTeam(t, { plan: 'pro' });
    expect(codeOf(await session.gql(VIEWER, {}, stranger.id))).toBe('FORBIDDEN');
  });
});

describe('team settings: MCP access tokens', () => {
  it('an admin creates a personal token acting as themselves, lists and revokes it', async () => {
    const { teamId, userId, session } = await teamWith('admin');
    const created = await session.gql(CREATE_TOKEN, { input: { teamId, name: 'claude desktop' } });
    expect(created.errors).toBeUndefined();
    const { accessToken, secret } = created.data.createAccessToken;
    expect(secret).toMatch(/^pds_mcp_/);
    const viewer = await t.gql(`{ viewer { credentialKind user { id } } }`, {}, secret);
    expect(viewer.data.viewer).toEqual({ credentialKind: 'personal-token', user: { id: userId } });

    const listed = await session.gql(TOKENS, { t: teamId });
    expect(listed.data.accessTokens).toEqual([
      expect.objectContaining({
        id: accessToken.id,
        kind: 'personal',
        name: 'claude desktop',
        revokedAt: null,
      }),
    ]);
    expect(
      (await session.gql(REVOKE_TOKEN, { id: accessToken.id })).data.revokeAccessToken.revokedAt,
    ).toBeTruthy();
    expect(await works(secret)).toBe(false);
  });

  it('an admin cannot make a token that acts as someone else, nor touch another team’s tokens', async () => {
    const { teamId, session } = await teamWith('admin');
    const colleague = await createUser(t);
    await addMember(t, teamId, colleague.id);
    const asColleague = await session.gql(CREATE_TOKEN, {
      input: { teamId, userId: colleague.id, name: 'x' },
    });
    expect(codeOf(asColleague)).toBe('FORBIDDEN');

    const other = await teamWith('owner');
    const foreign = await createAccessToken(t, other.teamId, other.userId);
    expect(codeOf(await session.gql(TOKENS, { t: other.teamId }))).toBe('FORBIDDEN');
    expect(codeOf(await session.gql(REVOKE_TOKEN, { id: foreign.id }))).toBe('BAD_USER_INPUT');
    expect(await works(foreign.secret)).toBe(true);
  });

  it('a member creates and revokes their own tokens only; an owner revokes anyone’s', async () => {
    const { teamId, userId: ownerId, session: owner } = await teamWith('owner');
    const member = await createUser(t);
    await addMember(t, teamId, member.id, 'member');
    const session = await signIn(t, member);
    const created = await session.gql(CREATE_TOKEN, { input: { teamId, name: 'mine' } });
    expect(created.errors).toBeUndefined();
    const ownersToken = await createAccessToken(t, teamId, ownerId);
    const refused = await session.gql(REVOKE_TOKEN, { id: ownersToken.id });
    expect(codeOf(refused)).toBe('BAD_USER_INPUT');
    expect(await works(ownersToken.secret)).toBe(true);
    expect((await session.gql(TOKENS, { t: teamId })).data.accessTokens).toHaveLength(2);
    const mine = created.data.createAccessToken;
    expect(
      (await owner.gql(REVOKE_TOKEN, { id: mine.accessToken.id })).data.revokeAccessToken.revokedAt,
    ).toBeTruthy();
    expect(await works(mine.secret)).toBe(false);
    expect(codeOf(await session.gql(ROLL_KEY, { id: 1, s: 0 }))).toBe('FORBIDDEN');
  });

  it('removing a member revokes their personal tokens; adding them back revives none', async () => {
    const { teamId, session: owner } = await teamWith('owner');
    const member = await createUser(t);
    await addMember(t, teamId, member.id, 'admin');
    const token = await createAccessToken(t, teamId, member.id);
    // Another team's token of the same person is not touched.
    const elsewhere = await teamWith('owner');
    await addMember(t, elsewhere.teamId, member.id);
    const kept = await createAccessToken(t, elsewhere.teamId, member.id);
    await t.op(`mutation($t: Int!, $u: Int!) { removeMembership(teamId: $t, userId: $u) }`, {
      t: teamId,
      u: member.id,
    });
    expect(await works(token.secret)).toBe(false);
    const listed = (await owner.gql(TOKENS, { t: teamId })).data.accessTokens;
    // No longer listed among the team's active tokens.
    expect(listed.map((k: { id: number }) => k.id)).not.toContain(token.id);
    await addMember(t, teamId, member.id, 'admin');
    expect(await works(token.secret)).toBe(false);
    expect(await works(kept.secret)).toBe(true);
  });

  it('the operator keeps the whole contract', async () => {
    const { teamId } = await teamWith('member');
    const key = await t.op(CREATE_KEY, { input: { teamId, name: 'op', scopes: ['floorplan-match'] } });
    const listed = await t.op(API_KEYS, { t: teamId });
    expect(listed.apiKeys.map((k: { id: string }) => k.id)).toEqual([key.createApiKey.apiKey.id]);
    const rolled = await t.op(ROLL_KEY, { id: key.createApiKey.apiKey.id, s: 60 });
    expect(rolled.rollApiKey.secret).toMatch(/^pds_key_/);
  });
});
