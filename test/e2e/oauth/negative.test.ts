import { createContext } from '../../../src/context/context.js';
import { PAST_DUE_GRACE_DAYS } from '../../../src/auth/entitlements.js';
import { generateSecret, hashSecret } from '../../../src/auth/secret.js';
import { AccessTokenSchema } from '../../../src/credentials/credential.entity.js';
import type { TestApp } from '../../support/app.js';
import { addMember, createTeam, createUser, setPlan } from '../../support/factories.js';
import { signIn } from '../../integration/settings/session-graphql.js';
import { authorizeInBrowser, Browser } from './browser.js';
import {
  authorizeUrl,
  exchange,
  obtainCode,
  pkcePair,
  refresh,
  registerClient,
  tokenRequest,
} from './oauth-client.js';
import { CALLBACK, startOAuthTestApp } from './sdk-client.js';

let t: TestApp;
beforeAll(async () => {
  t = await startOAuthTestApp();
});
afterAll(async () => {
  await t.close();
});

async function agentMember(tier = 'agent') {
  const team = await createTeam(t, { plan: 'pro', agentTier: tier });
  const user = await createUser(t);
  await addMember(t, team.id, user.id);
  return { team, user };
}

/** Uses an access token on the tool server (a JSON-RPC ping to /mcp): 200 accepted, 401 refused. */
async function onMcp(accessToken: string): Promise<number> {
  const res = await t.request('POST', '/mcp', {
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  return res.status;
}

/** A complete grant: client, code, tokens. */
async function connect(person: { email: string; password: string }) {
  const clientId = await registerClient(t);
  const { verifier, challenge } = pkcePair();
  const code = await obtainCode(t, person, { clientId, challenge });
  const res = await exchange(t, { clientId, code, verifier });
  expect(res.status).toBe(200);
  return { clientId, code, verifier, tokens: res.json as { access_token: string; refresh_token: string } };
}

describe('authorization code + PKCE', () => {
  it('refuses a wrong PKCE verifier with invalid_grant', async () => {
    const { user } = await agentMember();
    const clientId = await registerClient(t);
    const { challenge } = pkcePair();
    const code = await obtainCode(t, user, { clientId, challenge });
    const res = await exchange(t, { clientId, code, verifier: pkcePair().verifier });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('invalid_grant');
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('refuses a reused code with invalid_grant and revokes the tokens it produced', async () => {
    const { user } = await agentMember();
    const { clientId, code, verifier, tokens } = await connect(user);
    expect(await onMcp(tokens.access_token)).toBe(200);
    const again = await exchange(t, { clientId, code, verifier });
    expect(again.status).toBe(400);
    expect(again.json.error).toBe('invalid_grant');
    expect(await onMcp(tokens.access_token)).toBe(401);
    expect((await refresh(t, clientId, tokens.refresh_token)).json.error).toBe('invalid_grant');
  });

  it('refuses a code presented by another client', async () => {
    const { user } = await agentMember();
    const clientId = await registerClient(t);
    const other = await registerClient(t);
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(t, user, { clientId, challenge });
    const res = await exchange(t, { clientId: other, code, verifier });
    expect(res.json.error).toBe('invalid_grant');
  });

  it('accepts only S256: plain or missing challenges are refused with a sentence, never redirected', async () => {
    const clientId = await registerClient(t);
    const plain = new URL(authorizeUrl(t.url, { clientId, challenge: 'a'.repeat(43) }));
    plain.searchParams.set('code_challenge_method', 'plain');
    const missing = new URL(plain);
    missing.searchParams.delete('code_challenge');
    missing.searchParams.delete('code_challenge_method');
    for (const [url, description] of [
      [plain, 'code_challenge_method must be S256: plain PKCE is not accepted.'],
      [missing, 'code_challenge is required: this server needs PKCE with S256.'],
    ] as const) {
      const res = await fetch(url, { redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.json()).toEqual({ error: 'invalid_request', error_description: description });
    }
  });

  it('refuses an unknown client at the token endpoint with invalid_client', async () => {
    const res = await tokenRequest(t, {
      grant_type: 'authorization_code',
      client_id: '00000000-0000-4000-8000-000000000000',
      code: 'x',
      code_verifier: 'y',
    });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('invalid_client');
  });
});

describe('redirect URIs match exactly', () => {
  it.each([
    ['another path', `${CALLBACK}/other`],
    ['an added query', `${CALLBACK}?x=1`],
    ['another host', 'https://attacker.example/callback'],
    ['another scheme', CALLBACK.replace('http:', 'https:')],
  ])('refuses %s without redirecting (invalid_request)', async (_name, redirectUri) => {
    const clientId = await registerClient(t);
    const res = await fetch(authorizeUrl(t.url, { clientId, challenge: pkcePair().challenge, redirectUri }), {
      redirect: 'manual',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(((await res.json()) as { error?: string }).error).toBe('invalid_request');
  });

  it('refuses a token request whose redirect_uri differs from the authorization request', async () => {
    const { user } = await agentMember();
    const clientId = await registerClient(t, [CALLBACK, 'http://127.0.0.1:1/second']);
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(t, user, { clientId, challenge });
    const res = await exchange(t, { clientId, code, verifier, redirectUri: 'http://127.0.0.1:1/second' });
    expect(res.json.error).toBe('invalid_grant');
  });
});

describe('resource indicators (RFC 8707)', () => {
  it('refuses to authorize for another resource (invalid_target, not redirected)', async () => {
    const clientId = await registerClient(t);
    const url = authorizeUrl(t.url, {
      clientId,
      challenge: pkcePair().challenge,
      resource: 'https://other.example/mcp',
    });
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(((await res.json()) as { error: string }).error).toBe('invalid_target');
  });

  it('/mcp refuses a connector token bound to another resource', async () => {
    const { team, user } = await agentMember();
    const secret = generateSecret('oat');
    const em = t.app.db.orm.em.fork();
    em.create(AccessTokenSchema, {
      team: Number(team.id),
      user: Number(user.id),
      kind: 'oauth',
      name: 'elsewhere',
      prefix: secret.slice(0, 12),
      secretHash: hashSecret(secret),
      scopes: ['mcp'],
      clientId: 'other',
      resource: 'https://other.example/mcp',
      expiresAt: new Date(Date.now() + 60_000),
    });
    await em.flush();
    const res = await t.request('POST', '/mcp', {
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(res.json.error.message).toMatch(/issued for https:\/\/other\.example\/mcp/);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata=/);
  });

  it('binds tokens to /mcp: a token request for another resource is refused, and /graphql refuses the token', async () => {
    const { user } = await agentMember();
    const clientId = await registerClient(t);
    const { verifier, challenge } = pkcePair();
    const resource = `${t.config.publicBaseUrl}/mcp`;
    const code = await obtainCode(t, user, { clientId, challenge, resource });
    const wrong = await exchange(t, {
      clientId,
      code,
      verifier,
      resource: `${t.config.publicBaseUrl}/graphql`,
    });
    expect(wrong.json.error).toBe('invalid_target');
    const ok = await exchange(t, { clientId, code, verifier, resource });
    expect(ok.status).toBe(200);
    expect(await onMcp(ok.json.access_token)).toBe(200);
    const gql = await t.gql('{ viewer { credentialKind } }', {}, ok.json.access_token);
    expect(gql.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(gql.errors?.[0]?.message).toMatch(/issued for .*\/mcp, not for .*\/graphql/);
  });
});

describe('tokens follow the subscription and the membership on every request', () => {
  it.each([
    ['downgraded from Agent', { agentTier: 'none' }],
    [
      'subscription past due beyond the grace period',
      {
        subscriptionStatus: 'past_due',
        pastDueSince: new Date(Date.now() - (PAST_DUE_GRACE_DAYS + 1) * 86_400_000).toISOString(),
      },
    ],
    ['subscription unpaid', { subscriptionStatus: 'unpaid' }],
    ['subscription canceled', { subscriptionStatus: 'canceled' }],
  ])('team %s: the access token and the refresh token stop working', async (_name, change) => {
    const { team, user } = await agentMember();
    const { clientId, tokens } = await connect(user);
    expect(await onMcp(tokens.access_token)).toBe(200);
    await setPlan(t, team.id, change);
    expect(await onMcp(tokens.access_token)).toBe(401);
    const res = await refresh(t, clientId, tokens.refresh_token);
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('invalid_grant');
    expect(res.json.error_description).toMatch(/Agent or Enterprise/);
  });

  it('tier restored: the connection works again without reconnecting (a lapse is not a revocation)', async () => {
    const { team, user } = await agentMember();
    const { clientId, tokens } = await connect(user);
    await setPlan(t, team.id, { subscriptionStatus: 'unpaid' });
    expect(await onMcp(tokens.access_token)).toBe(401);
    expect((await refresh(t, clientId, tokens.refresh_token)).json.error).toBe('invalid_grant');
    await setPlan(t, team.id, { subscriptionStatus: 'active' });
    // The access token within its hour, and the refresh token, which the refused refresh did not spend.
    expect(await onMcp(tokens.access_token)).toBe(200);
    const res = await refresh(t, clientId, tokens.refresh_token);
    expect(res.status).toBe(200);
    expect(await onMcp(res.json.access_token)).toBe(200);
  });

  it('user removed from the team: the access token and the refresh token stop working', async () => {
    const { team, user } = await agentMember('enterprise');
    const { clientId, tokens } = await connect(user);
    await t.op(`mutation($t: Int!, $u: Int!) { removeMembership(teamId: $t, userId: $u) }`, {
      t: team.id,
      u: user.id,
    });
    expect(await onMcp(tokens.access_token)).toBe(401);
    // Revoked on removal, not merely refused while the user is out: adding them back revives nothing.
    await addMember(t, team.id, user.id);
    expect(await onMcp(tokens.access_token)).toBe(401);
    const res = await refresh(t, clientId, tokens.refresh_token);
    expect(res.json).toMatchObject({ error: 'invalid_grant' });
  });
});

describe('refresh-token rotation', () => {
  it('rotates on use; replaying a used refresh token revokes the whole family', async () => {
    const { user } = await agentMember();
    const { clientId, tokens } = await connect(user);
    const rotated = await refresh(t, clientId, tokens.refresh_token);
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    expect(rotated.json.refresh_token).not.toBe(tokens.refresh_token);
    expect(await onMcp(rotated.json.access_token)).toBe(200);

    const replay = await refresh(t, clientId, tokens.refresh_token);
    expect(replay.json.error).toBe('invalid_grant');
    expect(await onMcp(rotated.json.access_token)).toBe(401);
    expect((await refresh(t, clientId, rotated.json.refresh_token)).json.error).toBe('invalid_grant');
  });

  it('deletes a family’s long-expired tokens when it rotates', async () => {
    const { user } = await agentMember();
    const { clientId, tokens } = await connect(user);
    const second = (await refresh(t, clientId, tokens.refresh_token)).json;
    const sql = t.app.db.orm.em.getConnection();
    const [first] = await sql.execute(
      `select id, access_token_id from oauth_refresh_token where used_at is not null and client_id = ?`,
      [clientId],
    );
    const past = new Date(Date.now() - 3 * 24 * 3600 * 1000);
    await sql.execute(`update oauth_refresh_token set expires_at = ? where id = ?`, [past, first.id]);
    await sql.execute(`update access_token set expires_at = ? where id = ?`, [past, first.access_token_id]);
    expect((await refresh(t, clientId, second.refresh_token)).status).toBe(200);
    expect(await sql.execute(`select id from oauth_refresh_token where id = ?`, [first.id])).toEqual([]);
    expect(await sql.execute(`select id from access_token where id = ?`, [first.access_token_id])).toEqual(
      [],
    );
    expect(
      await sql.execute(`select id from oauth_refresh_token where client_id = ?`, [clientId]),
    ).toHaveLength(2);
  });

  it('refuses a refresh token presented by another client', async () => {
    const { user } = await agentMember();
    const { tokens } = await connect(user);
    const other = await registerClient(t);
    expect((await refresh(t, other, tokens.refresh_token)).json.error).toBe('invalid_grant');
  });

  it('revocation (RFC 7009) of the refresh token ends the grant', async () => {
    const { user } = await agentMember();
    const { clientId, tokens } = await connect(user);
    const res = await t.request('POST', '/oauth/revoke', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: clientId, token: tokens.refresh_token }).toString(),
    });
    expect(res.status).toBe(200);
    expect(await onMcp(tokens.access_token)).toBe(401);
    expect((await refresh(t, clientId, tokens.refresh_token)).json.error).toBe('invalid_grant');
  });
});

describe('team settings see and end connections', () => {
  it('a team admin revoking a connector token in the settings ends the grant', async () => {
    const team = await createTeam(t, { plan: 'pro', agentTier: 'agent' });
    const user = await createUser(t);
    await addMember(t, team.id, user.id, 'owner');
    const { clientId, tokens } = await connect(user);
    const session = await signIn(t, user);
    const listed = await session.gql(
      `query($t: Int!) { accessTokens(teamId: $t) { id kind clientId name } }`,
      {
        t: team.id,
      },
    );
    const connection = listed.data.accessTokens.find((x: { kind: string }) => x.kind === 'oauth');
    expect(connection).toMatchObject({ clientId, name: 'Connector: Raw Client' });
    const revoked = await session.gql(`mutation($id: Int!) { revokeAccessToken(id: $id) { revokedAt } }`, {
      id: connection.id,
    });
    expect(revoked.errors).toBeUndefined();
    expect(await onMcp(tokens.access_token)).toBe(401);
    expect((await refresh(t, clientId, tokens.refresh_token)).json.error).toBe('invalid_grant');
  });
});

describe('consent', () => {
  it('names the client and the team; a user with several teams picks one, ineligible ones cannot be chosen', async () => {
    const user = await createUser(t);
    const agent = await createTeam(t, { plan: 'pro', agentTier: 'agent', name: `Agent Team ${Date.now()}` });
    const enterprise = await createTeam(t, { plan: 'elite', agentTier: 'enterprise' });
    const none = await createTeam(t, { plan: 'elite', agentTier: 'none', name: `Plain Team ${Date.now()}` });
    for (const team of [agent, enterprise, none]) await addMember(t, team.id, user.id);
    const clientId = await registerClient(t);
    const { verifier, challenge } = pkcePair();
    let seen: { teams: string[]; disabledTeams: string[]; html: string } | null = null;
    const code = await obtainCode(t, user, { clientId, challenge }, (form) => {
      seen = form;
      return { team: String(enterprise.id), decision: 'allow' };
    });
    expect(seen!.html).toContain('Raw Client');
    expect(seen!.html).toContain('Agent Team');
    expect(seen!.html).toContain('127.0.0.1:1');
    expect(seen!.teams.sort()).toEqual([String(agent.id), String(enterprise.id)].sort());
    expect(seen!.disabledTeams).toEqual([String(none.id)]);
    const res = await exchange(t, { clientId, code, verifier });
    const ctx = await createContext(
      { transport: 'mcp', authorization: `Bearer ${res.json.access_token}`, ip: '1.1.1.1', requestId: 'c' },
      t.app.deps,
    );
    expect(ctx.viewer?.team?.id).toBe(Number(enterprise.id));
  });

  it('refuses a team the user may not choose, even when the form is forged', async () => {
    const { user } = await agentMember();
    const plain = await createTeam(t, { plan: 'elite', agentTier: 'none' });
    await addMember(t, plain.id, user.id);
    const clientId = await registerClient(t);
    const result = await authorizeInBrowser(
      new Browser(t.url),
      authorizeUrl(t.url, { clientId, challenge: pkcePair().challenge }),
      user,
      () => ({ team: String(plain.id), decision: 'allow' }),
    );
    expect(result.redirect).toBeNull();
    expect(result.page?.status).toBe(400);
    expect(await result.page?.text()).toMatch(/no active Agent or Enterprise subscription/);
  });

  it('without an Agent or Enterprise team: a clear refusal page, and the client hears access_denied', async () => {
    const team = await createTeam(t, { plan: 'elite', agentTier: 'none' });
    const user = await createUser(t);
    await addMember(t, team.id, user.id);
    const clientId = await registerClient(t);
    const browser = new Browser(t.url);
    const result = await authorizeInBrowser(
      browser,
      authorizeUrl(t.url, { clientId, challenge: pkcePair().challenge }),
      user,
    );
    expect(result.page?.status).toBe(403);
    expect(await result.page?.text()).toMatch(/needs an active Agent or Enterprise subscription/);
    const back = await browser.post('/oauth/consent', {
      request: result.consent!.request,
      token: result.consent!.token,
      decision: 'deny',
    });
    const location = new URL(back.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('raw-state');
  });

  it('deny sends access_denied with the state; the request cannot be answered twice', async () => {
    const { user } = await agentMember();
    const clientId = await registerClient(t);
    const browser = new Browser(t.url);
    const result = await authorizeInBrowser(
      browser,
      authorizeUrl(t.url, { clientId, challenge: pkcePair().challenge }),
      user,
      () => ({ decision: 'deny' }),
    );
    expect(result.redirect?.searchParams.get('error')).toBe('access_denied');
    const again = await browser.post('/oauth/consent', {
      request: result.consent!.request,
      token: result.consent!.token,
      decision: 'allow',
      team: result.consent!.teams[0],
    });
    expect(again.status).toBe(400);
  });

  it('refuses a consent form posted from another site or without its form token', async () => {
    const { user } = await agentMember();
    const clientId = await registerClient(t);
    const browser = new Browser(t.url);
    await browser.login(user.email, user.password);
    const start = await browser.get(authorizeUrl(t.url, { clientId, challenge: pkcePair().challenge }));
    const page = await browser.get(start.headers.get('location')!);
    const html = await page.text();
    const request = /name="request" value="([^"]+)"/.exec(html)![1];
    const team = /name="team"\s+value="(\d+)"/.exec(html)![1];
    const token = /name="token" value="([^"]+)"/.exec(html)![1];
    const crossSite = await browser.post(
      '/oauth/consent',
      { request, token, team, decision: 'allow' },
      { origin: 'https://attacker.example' },
    );
    expect(crossSite.status).toBe(403);
    const forged = await browser.post('/oauth/consent', { request, token: 'guess', team, decision: 'allow' });
    expect(forged.status).toBe(403);
    const signedOut = await fetch(new URL('/oauth/consent', t.url), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ request, token, team, decision: 'allow' }).toString(),
    });
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.get('location')).toMatch(/^\/login\?next=/);
  });

  it('an unknown or expired request shows an error page', async () => {
    const res = await t.request('GET', '/oauth/consent?request=nope');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(res.text).toMatch(/expired or was already answered/);
  });
});

describe('discovery, registration and CORS', () => {
  it('publishes RFC 8414 authorization server metadata', async () => {
    const res = await t.request('GET', '/.well-known/oauth-authorization-server');
    const base = t.config.publicBaseUrl;
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      revocation_endpoint: `${base}/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
    });
  });

  it('registers public clients: echoes redirect_uris, never returns a secret', async () => {
    const redirect_uris = [
      'http://localhost:33418/callback',
      'https://app.example/cb',
      'cursor://anysphere/oauth',
    ];
    const res = await t.request('POST', '/oauth/register', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'C',
        redirect_uris,
        token_endpoint_auth_method: 'client_secret_post',
      }),
    });
    expect(res.status).toBe(201);
    expect(res.json.redirect_uris).toEqual(redirect_uris);
    expect(res.json.token_endpoint_auth_method).toBe('none');
    expect(res.json.client_secret).toBeUndefined();
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it.each([
    ['http on a public host', 'http://app.example/cb'],
    ['a fragment', 'https://app.example/cb#frag'],
  ])('refuses a redirect URI with %s (invalid_redirect_uri)', async (_name, uri) => {
    const res = await t.request('POST', '/oauth/register', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [uri] }),
    });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('invalid_redirect_uri');
  });

  it('answers CORS preflights on the token, registration and metadata endpoints and /mcp, exposing WWW-Authenticate', async () => {
    for (const path of [
      '/oauth/token',
      '/oauth/register',
      '/.well-known/oauth-authorization-server',
      '/mcp',
    ]) {
      const res = await fetch(new URL(path, t.url), {
        method: 'OPTIONS',
        headers: {
          origin: 'https://claude.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
        },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-headers')).toMatch(/authorization/i);
    }
    const metadata = await fetch(new URL('/.well-known/oauth-authorization-server', t.url), {
      headers: { origin: 'https://claude.example' },
    });
    expect(metadata.headers.get('access-control-allow-origin')).toBe('*');
    expect(metadata.headers.get('access-control-expose-headers')).toMatch(/WWW-Authenticate/i);
  });

  it('gives GraphQL and the sign-in pages no CORS headers', async () => {
    for (const path of ['/graphql', '/login']) {
      const res = await fetch(new URL(path, t.url), { headers: { origin: 'https://claude.example' } });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
  });
});
