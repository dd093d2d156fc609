import { nativeQuery } from '../../../src/db/native.js';
import type { TestApp } from '../../support/app.js';
import { authorizeUrl, pkcePair, registerClient } from './oauth-client.js';
import { CALLBACK, startOAuthTestApp } from './sdk-client.js';

/**
 * The connector's endpoints store only what a flow needs, charge every storing request to its
 * address, and never send a browser anywhere before a person has acted.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startOAuthTestApp();
});
afterAll(() => t.close());

const sql = async <T>(text: string, params: unknown[] = []) =>
  (await nativeQuery(t.app.deps.em.fork()))<T>(text, params);

const register = (metadata: Record<string, unknown>) =>
  t.request('POST', '/oauth/register', {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none', ...metadata }),
  });

describe('authorization requests that fail their checks', () => {
  it.each([
    [
      'response_type=x',
      { response_type: 'x' },
      'unsupported_response_type',
      'Only response_type=code is supported.',
    ],
    [
      'no code_challenge',
      { code_challenge: null },
      'invalid_request',
      'code_challenge is required: this server needs PKCE with S256.',
    ],
    [
      'a short code_challenge',
      { code_challenge: 'abc' },
      'invalid_request',
      'code_challenge must be a base64url-encoded SHA-256 digest of 43 characters.',
    ],
    [
      'a 2,049-character state',
      { state: 's'.repeat(2049) },
      'invalid_request',
      'state must be at most 2048 characters.',
    ],
    [
      'a NUL in state',
      { state: 'a\u0000b' },
      'invalid_request',
      'The parameter state is not valid text or is too long.',
    ],
  ])(
    '%s: 400 with a one-sentence description, no redirect to the client',
    async (_name, change, error, description) => {
      const clientId = await registerClient(t);
      const url = new URL(
        authorizeUrl(t.url, { clientId, challenge: pkcePair().challenge, state: 'kept-state' }),
      );
      for (const [k, v] of Object.entries(change)) {
        if (v === null) url.searchParams.delete(k);
        else url.searchParams.set(k, v);
      }
      const res = await fetch(url, { redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.json()).toEqual({ error, error_description: description });
    },
  );

  it('a missing client_id or a repeated parameter is a sentence, not a validation dump', async () => {
    const none = await t.request('GET', '/oauth/authorize?response_type=code');
    expect(none.status).toBe(400);
    expect(none.json).toEqual({ error: 'invalid_request', error_description: 'client_id is required.' });
    const clientId = await registerClient(t);
    const twice = await t.request(
      'GET',
      `${new URL(authorizeUrl(t.url, { clientId, challenge: pkcePair().challenge })).search.replace('?', '/oauth/authorize?')}&state=again`,
    );
    expect(twice.status).toBe(400);
    expect(twice.json.error_description).toBe('The parameter state must be given once, as text.');
  });
});

describe('pending authorization requests', () => {
  it('GET /oauth/authorize is charged to the address like every other storing request', async () => {
    const small = await startOAuthTestApp(
      {},
      {
        policies: {
          oauth: { points: 5, durationSeconds: 60, keyedBy: 'ip' },
          'client-registration': { points: 100, durationSeconds: 60, keyedBy: 'ip' },
        },
      },
    );
    try {
      const clientId = await registerClient(small);
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await fetch(authorizeUrl(small.url, { clientId, challenge: pkcePair().challenge }), {
          redirect: 'manual',
        });
        statuses.push(res.status);
        if (res.status === 429) expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      }
      // The registration took one of the five points.
      expect(statuses).toEqual([302, 302, 302, 302, 429, 429]);
    } finally {
      await small.close();
    }
  });

  it('a request nobody approved is deleted once it can no longer be approved', async () => {
    const clientId = await registerClient(t);
    const first = await fetch(authorizeUrl(t.url, { clientId, challenge: pkcePair().challenge }), {
      redirect: 'manual',
    });
    const id = new URL(first.headers.get('location')!, t.url).searchParams.get('request')!;
    await sql(`update oauth_authorization set expires_at = now() - interval '1 second' where id = $1`, [id]);
    await fetch(authorizeUrl(t.url, { clientId, challenge: pkcePair().challenge }), { redirect: 'manual' });
    expect(await sql(`select id from oauth_authorization where id = $1`, [id])).toEqual([]);
  });
});

describe('dynamic client registration', () => {
  it.each([
    [
      'a 90 KB client_uri',
      { client_uri: `https://example.com/${'a'.repeat(90_000)}` },
      'client_uri must be at most 2000 characters',
    ],
    ['a 90 KB contact', { contacts: ['a'.repeat(90_000)] }, 'each contact must be at most 320 characters'],
    [
      'six contacts',
      { contacts: ['a@x.io', 'b@x.io', 'c@x.io', 'd@x.io', 'e@x.io', 'f@x.io'] },
      'at most 5 contacts are allowed',
    ],
    [
      'a 201-character client_name',
      { client_name: 'n'.repeat(201) },
      'client_name must be at most 200 characters',
    ],
    ['a 1,001-character scope', { scope: 's'.repeat(1001) }, 'scope must be at most 1000 characters'],
  ])('refuses %s', async (_name, metadata, description) => {
    const res = await register(metadata);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: 'invalid_client_metadata', error_description: description });
  });

  it('stores no keys for a public client', async () => {
    const res = await register({ jwks: { keys: [{ kty: 'oct', k: 'x'.repeat(5000) }] } });
    expect(res.status).toBe(201);
    const [row] = await sql<{ metadata: Record<string, unknown> }>(
      `select metadata from oauth_client where id = $1`,
      [res.json.client_id],
    );
    expect(row.metadata.jwks).toBeUndefined();
  });

  it('registrations are bounded per address', async () => {
    const small = await startOAuthTestApp(
      {},
      { policies: { 'client-registration': { points: 3, durationSeconds: 3600, keyedBy: 'ip' } } },
    );
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await small.request('POST', '/oauth/register', {
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none' }),
        });
        statuses.push(res.status);
      }
      expect(statuses).toEqual([201, 201, 201, 429]);
    } finally {
      await small.close();
    }
  });

  it('a client that never completed a grant is deleted a day after registering; one that did is kept', async () => {
    const unused = await registerClient(t);
    const used = await registerClient(t);
    await sql(
      `insert into oauth_authorization (id, client_id, redirect_uri, code_challenge, scopes, resource, expires_at, exchanged_at, created_at)
       values ($1, $2, $3, 'x', '{mcp}', 'r', now(), now(), now())`,
      [`used-${used}`.slice(0, 64), used, CALLBACK],
    );
    await sql(`update oauth_client set created_at = now() - interval '25 hours' where id in ($1, $2)`, [
      unused,
      used,
    ]);
    await registerClient(t);
    const left = await sql<{ id: string }>(`select id from oauth_client where id in ($1, $2)`, [
      unused,
      used,
    ]);
    expect(left.map((r) => r.id)).toEqual([used]);
  });
});
