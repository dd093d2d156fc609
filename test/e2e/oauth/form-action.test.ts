import { formActionSource } from '../../../src/users/html.js';
import type { TestApp } from '../../support/app.js';
import { addMember, createTeam, createUser } from '../../support/factories.js';
import { signIn } from '../../integration/settings/session-graphql.js';
import { authorizeInBrowser, Browser } from './browser.js';
import { authorizeUrl, pkcePair, registerClient } from './oauth-client.js';
import { startOAuthTestApp } from './sdk-client.js';

/**
 * The HTML pages' forms post to this origin only (CSP `form-action`); the consent page also allows
 * the client's redirect URI, where its answer redirects (browsers check the redirect too).
 */
let t: TestApp;
beforeAll(async () => {
  t = await startOAuthTestApp();
});
afterAll(() => t.close());

const formAction = (csp: string | null) => /(?:^|; )form-action ([^;]+)/.exec(csp ?? '')?.[1];

it('the sign-in page: forms post to this origin only', async () => {
  const res = await t.request('GET', '/login');
  expect(formAction(res.headers.get('content-security-policy'))).toBe("'self'");
});

it('the settings pages: forms post to this origin only', async () => {
  const team = await createTeam(t, { plan: 'pro' });
  const user = await createUser(t);
  await addMember(t, team.id, user.id, 'owner');
  const { cookie } = await signIn(t, user);
  for (const path of ['/settings', '/settings/api-keys', '/settings/api']) {
    const res = await t.request('GET', `${path}?team=${team.id}`, { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(formAction(res.headers.get('content-security-policy'))).toBe("'self'");
  }
});

it.each([
  ['http://127.0.0.1:33418/callback', "'self' http://127.0.0.1:33418"],
  ['https://client.example/oauth/back', "'self' https://client.example"],
  ['cursor://anysphere.cursor-retrieval/oauth/callback', "'self' cursor:"],
])('the consent page for a client redirecting to %s allows %s', async (redirectUri, expected) => {
  const team = await createTeam(t, { plan: 'elite', agentTier: 'agent' });
  const user = await createUser(t);
  await addMember(t, team.id, user.id);
  const clientId = await registerClient(t, [redirectUri]);
  const browser = new Browser(t.url);
  // Stop at the consent page and read its header.
  const result = await authorizeInBrowser(
    browser,
    authorizeUrl(t.url, { clientId, challenge: pkcePair().challenge, redirectUri }),
    user,
    () => ({ decision: 'allow', team: 'none' }),
  );
  expect(result.consent).not.toBeNull();
  const page = await browser.get(`/oauth/consent?request=${result.consent!.request}`);
  expect(page.status).toBe(200);
  expect(formAction(page.headers.get('content-security-policy'))).toBe(expected);
});

it('a redirect URI a source expression cannot name is allowed by its scheme', () => {
  expect(formActionSource('http://[::1]:8080/cb')).toBe('http:');
  expect(formActionSource('http://localhost:8080/cb')).toBe('http://localhost:8080');
});
