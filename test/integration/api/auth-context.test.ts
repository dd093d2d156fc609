import type { EntityManager } from '@mikro-orm/postgresql';
import { authenticate } from '../../../src/auth/authenticate.js';
import { generateSecret, hashSecret } from '../../../src/auth/secret.js';
import { createContext } from '../../../src/context/context.js';
import { ApiKeySchema } from '../../../src/credentials/credential.entity.js';
import { AppError } from '../../../src/errors/catalogue.js';
import { startTestApp, OPERATOR_TOKEN, type TestApp } from '../../support/app.js';
import {
  addMember,
  createAccessToken,
  createApiKey,
  createTeam,
  createUser,
  setPlan,
} from '../../support/factories.js';

const VIEWER = `{ viewer { credentialKind isOperator scopes team { id plan } user { id } } }`;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

function context(
  authorization: string | undefined,
  extra: Partial<Parameters<typeof createContext>[0]> = {},
) {
  return createContext(
    { transport: 'rest', authorization, ip: '10.9.9.9', requestId: 'test', ...extra },
    t.app.deps,
  );
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'resolved';
  } catch (err) {
    return err instanceof AppError ? err.code : `unexpected: ${String(err)}`;
  }
}

describe('one context: credentials', () => {
  it('resolves an API key to its team, plan and scopes', async () => {
    const team = await createTeam(t, { plan: 'pro' });
    const key = await createApiKey(t, team.id, ['building-links']);
    const res = await t.gql(VIEWER, {}, key.secret);
    expect(res.errors).toBeUndefined();
    expect(res.data.viewer).toEqual({
      credentialKind: 'api-key',
      isOperator: false,
      scopes: ['building-links'],
      team: { id: team.id, plan: 'pro' },
      user: null,
    });
  });

  it('resolves a personal MCP access token to the team and user', async () => {
    const team = await createTeam(t, { plan: 'elite' });
    const user = await createUser(t);
    await addMember(t, team.id, user.id);
    const token = await createAccessToken(t, team.id, user.id);
    const res = await t.gql(VIEWER, {}, token.secret);
    expect(res.data.viewer).toMatchObject({
      credentialKind: 'personal-token',
      team: { id: team.id },
      user: { id: user.id },
    });
  });

  it('resolves the operator token', async () => {
    const res = await t.gql(VIEWER, {}, OPERATOR_TOKEN);
    expect(res.data.viewer).toMatchObject({ credentialKind: 'operator', isOperator: true, team: null });
  });

  it('accepts a bare key on REST but requires "Bearer " on the tool server', async () => {
    const team = await createTeam(t, { plan: 'pro' });
    const key = await createApiKey(t, team.id, ['building-links']);
    const ctx = await context(key.secret);
    expect(ctx.viewer?.credential.kind).toBe('api-key');
    const token = await createAccessToken(t, team.id);
    expect(await codeOf(context(token.secret, { transport: 'mcp' }))).toBe('CREDENTIAL_INVALID');
    expect((await context(`Bearer ${token.secret}`, { transport: 'mcp' })).viewer?.credential.kind).toBe(
      'personal-token',
    );
  });

  it('refuses a credential of the wrong kind for the transport', async () => {
    const team = await createTeam(t, { plan: 'pro' });
    const key = await createApiKey(t, team.id, ['building-links']);
    const token = await createAccessToken(t, team.id);
    expect(await codeOf(context(`Bearer ${key.secret}`, { transport: 'mcp' }))).toBe('CREDENTIAL_INVALID');
    expect(await codeOf(context(`Bearer ${token.secret}`, { transport: 'rest' }))).toBe('CREDENTIAL_INVALID');
  });

  it('missing and malformed credentials', async () => {
    expect(await codeOf(context(undefined))).toBe('CREDENTIAL_MISSING');
    expect(await codeOf(context('   '))).toBe('CREDENTIAL_MISSING');
    expect(await codeOf(context('Bearer not-a-key'))).toBe('CREDENTIAL_INVALID');
    expect(await codeOf(context('Basic dXNlcjpwYXNz'))).toBe('CREDENTIAL_INVALID');
    const res = await t.gql(VIEWER, {}, 'garbage');
    expect(res.status).toBe(401);
    expect(res.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('rejects a malformed or checksum-failing secret without reading the database', async () => {
    const untouchable = new Proxy({} as EntityManager, {
      get: () => {
        throw new Error('database was read');
      },
    });
    const good = generateSecret('key');
    const badChecksum = good.slice(0, -1) + (good.endsWith('A') ? 'B' : 'A');
    for (const secret of ['pds_key_short', badChecksum, 'pds_zzz_' + good.slice(8), '']) {
      await expect(
        authenticate(untouchable, secret, { transport: 'rest', adminToken: null }),
      ).rejects.toMatchObject({
        code: 'CREDENTIAL_INVALID',
      });
    }
  });

  it('an unknown well-formed key is invalid', async () => {
    expect(await codeOf(context(`Bearer ${generateSecret('key')}`))).toBe('CREDENTIAL_INVALID');
  });

  it('revoked keys and tokens are rejected on the next request', async () => {
    const team = await createTeam(t, { plan: 'pro' });
    const key = await createApiKey(t, team.id, ['building-links']);
    expect((await t.gql(VIEWER, {}, key.secret)).data?.viewer).toBeTruthy();
    await t.op(`mutation($id: Int!) { revokeApiKey(id: $id) { id revokedAt } }`, { id: key.id });
    expect((await t.gql(VIEWER, {}, key.secret)).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');

    const token = await createAccessToken(t, team.id);
    await t.op(`mutation($id: Int!) { revokeAccessToken(id: $id) { id } }`, { id: token.id });
    expect((await t.gql(VIEWER, {}, token.secret)).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('expired keys are rejected', async () => {
    const team = await createTeam(t, { plan: 'pro' });
    const key = await createApiKey(
      t,
      team.id,
      ['building-links'],
      new Date(Date.now() + 60_000).toISOString(),
    );
    expect((await t.gql(VIEWER, {}, key.secret)).data?.viewer).toBeTruthy();
    await t.app.deps.em
      .fork()
      .nativeUpdate(ApiKeySchema, { id: Number(key.id) }, { expiresAt: new Date(Date.now() - 1000) });
    expect((await t.gql(VIEWER, {}, key.secret)).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('stores only the SHA-256 of a secret', async () => {
    const team = await createTeam(t, { plan: 'pro' });
    const key = await createApiKey(t, team.id, []);
    const rows = await t.app.deps.em
      .fork()
      .getConnection()
      .execute(`select * from api_key where id = ?`, [Number(key.id)]);
    expect(JSON.stringify(rows)).not.toContain(key.secret);
    expect(rows[0].secret_hash).toBe(hashSecret(key.secret));
  });

  it('updates lastUsedAt at most once a minute', async () => {
    const team = await createTeam(t, { plan: 'pro' });
    const key = await createApiKey(t, team.id, []);
    const read = async () =>
      (await t.app.deps.em.fork().findOneOrFail(ApiKeySchema, { id: Number(key.id) })).lastUsedAt?.getTime();
    expect(await read()).toBeUndefined();
    await context(key.secret);
    const first = await read();
    expect(first).toBeGreaterThan(0);
    await context(key.secret);
    expect(await read()).toBe(first);
  });
});

describe('one context: plan and scope', () => {
  it('checks scope, then plan, and a downgrade bites on the very next request', async () => {
    const team = await createTeam(t, { plan: 'pro' });
    const key = await createApiKey(t, team.id, ['building-links']);
    expect((await context(key.secret, { scope: 'building-links' })).viewer?.team?.plan).toBe('pro');
    expect(await codeOf(context(key.secret, { scope: 'floorplan-match' }))).toBe('SCOPE_MISSING');
    await setPlan(t, team.id, { plan: 'essential' });
    expect(await codeOf(context(key.secret, { scope: 'building-links' }))).toBe('PLAN_UPGRADE_REQUIRED');
    await setPlan(t, team.id, { plan: 'elite' });
    expect((await context(key.secret, { scope: 'building-links' })).viewer?.team?.plan).toBe('elite');
  });

  it('refuses Fusion scopes on a key for a team below Pro', async () => {
    const team = await createTeam(t, { plan: 'essential' });
    const res = await t.gql(
      `mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret } }`,
      { input: { teamId: team.id, name: 'k', scopes: ['building-links'] } },
      OPERATOR_TOKEN,
    );
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors?.[0]?.message).toMatch(/scopes: .*Pro or Elite/);
  });
});
