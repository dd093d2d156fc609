import { hashSecret } from '../../../src/auth/secret.js';
import { sessionCookieName } from '../../../src/users/session-cookie.js';
import { OPERATOR_TOKEN, startTestApp, type TestApp } from '../../support/app.js';
import { addMember, createTeam, createUser } from '../../support/factories.js';
import { Browser } from './browser.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const VIEWER = `{ viewer { credentialKind role team { id } user { email } } }`;

async function gqlWithCookie(cookie: string, query = VIEWER) {
  const res = await t.request('POST', '/graphql', {
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ query }),
  });
  return res.json as { data?: any; errors?: { extensions?: { code?: string } }[] };
}

async function sessionRows(): Promise<{ secret_hash: string }[]> {
  return t.app.db.orm.em.getConnection().execute('select secret_hash from user_session');
}

describe('sign-in pages and sessions', () => {
  it('serves a login form that cannot be framed or cached', async () => {
    const res = await t.request('GET', '/login');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toMatch(/<form method="post" action="\/login">/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    // Not no-referrer: under it browsers post the page's own forms with `Origin: null`.
    expect(res.headers.get('referrer-policy')).toBe('same-origin');
  });

  it('signs in with email and password: HttpOnly SameSite=Lax cookie, stored only as a hash', async () => {
    const team = await createTeam(t, { plan: 'pro' });
    const user = await createUser(t);
    await addMember(t, team.id, user.id, 'owner');
    const browser = new Browser(t.url);
    const res = await browser.login(user.email.toUpperCase(), user.password, '/oauth/consent?request=abc');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/oauth/consent?request=abc');
    const setCookie = res.headers.getSetCookie()[0];
    expect(setCookie).toMatch(/^pds_session=[A-Za-z0-9_-]{43};/);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    expect(setCookie).toMatch(/Path=\//);
    const secret = browser.cookie('pds_session')!;
    const hashes = (await sessionRows()).map((r) => r.secret_hash);
    expect(hashes).toContain(hashSecret(secret));
    expect(hashes).not.toContain(secret);

    const body = await gqlWithCookie(browser.cookieHeader());
    expect(body.data.viewer).toEqual({
      credentialKind: 'session',
      role: 'owner',
      team: { id: team.id },
      user: { email: user.email },
    });
  });

  it.each([
    ['a wrong password', (u: { email: string }) => ({ email: u.email, password: 'wrong password!' })],
    ['an unknown email', () => ({ email: 'nobody@example.com', password: 'whatever123' })],
  ])('refuses %s with the same message and no cookie', async (_name, creds) => {
    const user = await createUser(t);
    const { email, password } = creds(user);
    const browser = new Browser(t.url);
    const res = await browser.login(email, password);
    expect(res.status).toBe(401);
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(await res.text()).toContain('The email or password is incorrect.');
  });

  it('signs out: the session is deleted server-side, so the old cookie stops working', async () => {
    const user = await createUser(t);
    const browser = new Browser(t.url);
    await browser.login(user.email, user.password);
    const cookie = browser.cookieHeader();
    const page = await (await browser.get('/login')).text();
    expect(page).toContain(user.email);
    const token = /name="token" value="([^"]+)"/.exec(page)![1];
    const out = await browser.post('/logout', { token });
    expect(out.status).toBe(303);
    expect(browser.cookie('pds_session')).toBeUndefined();
    const after = await gqlWithCookie(cookie);
    expect(after.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('refuses a sign-out without its form token and a sign-in posted from another site', async () => {
    const user = await createUser(t);
    const browser = new Browser(t.url);
    await browser.login(user.email, user.password);
    expect((await browser.post('/logout', { token: 'forged' })).status).toBe(403);
    expect((await gqlWithCookie(browser.cookieHeader())).data?.viewer?.credentialKind).toBe('session');
    const crossSite = await new Browser(t.url).post(
      '/login',
      { email: user.email, password: user.password, next: '/login' },
      { origin: 'https://attacker.example' },
    );
    expect(crossSite.status).toBe(403);
    expect(crossSite.headers.getSetCookie()).toEqual([]);
  });

  it.each([
    ['from the same origin', 303, { 'sec-fetch-site': 'same-origin' }],
    ['with no Sec-Fetch-Site', 403, {}],
    ['from another site', 403, { 'sec-fetch-site': 'cross-site' }],
    ['from a sibling subdomain', 403, { 'sec-fetch-site': 'same-site' }],
  ])('a sign-in posted with `Origin: null` %s answers %i', async (_name, status, headers) => {
    const user = await createUser(t);
    const res = await new Browser(t.url).post(
      '/login',
      { email: user.email, password: user.password, next: '/login' },
      { origin: 'null', ...headers },
    );
    expect(res.status).toBe(status);
  });

  it.each([
    '//attacker.example/x',
    'https://attacker.example/',
    '/\\attacker.example',
    'javascript:alert(1)',
  ])('never redirects off-site after sign-in (next=%s)', async (next) => {
    const user = await createUser(t);
    const res = await new Browser(t.url).login(user.email, user.password, next);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/login');
  });

  it('an Authorization header wins over the cookie; a garbage cookie is refused', async () => {
    const user = await createUser(t);
    const browser = new Browser(t.url);
    await browser.login(user.email, user.password);
    const res = await t.request('POST', '/graphql', {
      headers: {
        'content-type': 'application/json',
        cookie: browser.cookieHeader(),
        authorization: `Bearer ${OPERATOR_TOKEN}`,
      },
      body: JSON.stringify({ query: VIEWER }),
    });
    expect(res.json.data.viewer.credentialKind).toBe('operator');
    const garbage = await gqlWithCookie('pds_session=not-a-session');
    expect(garbage.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('names the cookie __Host-pds_session over HTTPS', () => {
    expect(sessionCookieName({ publicBaseUrl: 'https://pds.example' })).toBe('__Host-pds_session');
    expect(sessionCookieName({ publicBaseUrl: 'http://127.0.0.1:3000' })).toBe('pds_session');
  });
});

describe('per-address limits on the interactive endpoints', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await startTestApp(
      {},
      { policies: { 'auth-failure': { points: 3, durationSeconds: 60, keyedBy: 'ip' } } },
    );
  });
  afterAll(async () => {
    await limited.close();
  });

  it('slows password guessing: after the failure budget, sign-in answers 429', async () => {
    const user = await createUser(limited);
    const browser = new Browser(limited.url);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await browser.login(user.email, `wrong-${i}-password`)).status);
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
    expect(statuses.slice(3)).toEqual([429, 429]);
  });
});
