import type { TestApp } from '../../support/app.js';
import { registerClient, tokenRequest } from './oauth-client.js';
import { startOAuthTestApp } from './sdk-client.js';

/**
 * The authorization server's protocol endpoints (the MCP SDK's Express handlers) answer through
 * Fastify: the hooks before them hold (request id, the per-address limit, no-store), a URL the
 * Express side cannot decode is a client error, and every method gets an OAuth answer.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startOAuthTestApp({}, { policies: { oauth: { points: 4, durationSeconds: 60, keyedBy: 'ip' } } });
});
afterAll(async () => {
  await t.close();
});

describe('the OAuth protocol endpoints inside Fastify', () => {
  it('keep the request id the caller sent, on answers written by the Express handlers', async () => {
    const res = await t.request('GET', '/.well-known/oauth-authorization-server', {
      headers: { 'x-request-id': 'oauth-metadata-1' },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ token_endpoint: `${t.url}/oauth/token` });
    expect(res.headers.get('x-request-id')).toBe('oauth-metadata-1');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('answer a method an endpoint does not take with the SDK’s 405, not a Fastify 404', async () => {
    const res = await t.request('PUT', '/oauth/token', {
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(405);
    expect(res.json).toMatchObject({ error: 'method_not_allowed' });
  });

  it('refuse a URL with broken percent-encoding as a client error, never a 5xx', async () => {
    for (const path of ['/oauth/authorize?client_id=%E0%A4%A', '/oauth/authorize?state=%']) {
      const res = await t.request('GET', path);
      expect({ path, status: res.status < 500 }).toEqual({ path, status: true });
    }
    expect((await t.request('GET', '/.well-known/oauth-authorization-server')).status).toBe(200);
  });

  it('charge every POST to the address before the Express app reads it: 429 with Retry-After and no-store', async () => {
    // The GETs above were free and the PUT was the first charge; the registration is the second,
    // two token requests the third and fourth.
    await registerClient(t);
    for (let i = 0; i < 2; i++) {
      const res = await tokenRequest(t, {
        grant_type: 'authorization_code',
        code: 'nope',
        client_id: 'nobody',
      });
      expect(res.status).toBeLessThan(429);
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
    const limited = await tokenRequest(t, {
      grant_type: 'authorization_code',
      code: 'nope',
      client_id: 'nobody',
    });
    expect(limited.status).toBe(429);
    expect(limited.json).toEqual({
      error: 'too_many_requests',
      error_description: expect.stringMatching(/^Retry in \d+ seconds$/),
    });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('cache-control')).toBe('no-store');
    // Reading the metadata is not charged.
    expect((await t.request('GET', '/.well-known/oauth-authorization-server')).status).toBe(200);
  });
});
