import { createHash, randomBytes } from 'node:crypto';
import type { TestApp } from '../../support/app.js';
import { authorizeInBrowser, Browser, type ConsentForm, type Person } from './browser.js';
import { CALLBACK } from './sdk-client.js';

/** Raw protocol steps, for the tests that must send what a well-behaved SDK never would. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export async function registerClient(t: TestApp, redirectUris: string[] = [CALLBACK]): Promise<string> {
  const res = await t.request('POST', '/oauth/register', {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Raw Client',
      redirect_uris: redirectUris,
      token_endpoint_auth_method: 'none',
    }),
  });
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${res.text}`);
  return res.json.client_id as string;
}

export function authorizeUrl(
  base: string,
  params: { clientId: string; challenge: string; redirectUri?: string; resource?: string; state?: string },
): string {
  const url = new URL('/oauth/authorize', base);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', params.clientId);
  url.searchParams.set('redirect_uri', params.redirectUri ?? CALLBACK);
  url.searchParams.set('code_challenge', params.challenge);
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('state', params.state ?? 'raw-state');
  if (params.resource !== undefined) url.searchParams.set('resource', params.resource);
  return url.href;
}

/** Runs the browser part and returns the code, or throws with where it stopped. */
export async function obtainCode(
  t: TestApp,
  person: Person,
  params: { clientId: string; challenge: string; redirectUri?: string; resource?: string },
  choose?: (form: ConsentForm) => { team?: string; decision: 'allow' | 'deny' },
): Promise<string> {
  const result = await authorizeInBrowser(new Browser(t.url), authorizeUrl(t.url, params), person, choose);
  const code = result.redirect?.searchParams.get('code');
  if (!code) throw new Error(`no code: ${result.redirect?.href ?? (await result.page?.text())}`);
  return code;
}

export function tokenRequest(t: TestApp, fields: Record<string, string>) {
  return t.request('POST', '/oauth/token', {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

export function exchange(
  t: TestApp,
  p: { clientId: string; code: string; verifier: string; redirectUri?: string; resource?: string },
) {
  return tokenRequest(t, {
    grant_type: 'authorization_code',
    client_id: p.clientId,
    code: p.code,
    code_verifier: p.verifier,
    redirect_uri: p.redirectUri ?? CALLBACK,
    ...(p.resource ? { resource: p.resource } : {}),
  });
}

export function refresh(t: TestApp, clientId: string, refreshToken: string) {
  return tokenRequest(t, { grant_type: 'refresh_token', client_id: clientId, refresh_token: refreshToken });
}
