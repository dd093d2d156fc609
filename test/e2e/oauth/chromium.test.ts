import { join } from 'node:path';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { TestApp } from '../../support/app.js';
import {
  DESKTOP,
  chromiumMissing,
  expectStrictPolicy,
  launchChromium,
  runningInCi,
  screenshotWidths,
  watchedPage,
  type PageWatch,
} from '../../support/chromium.js';
import { addMember, createProject, createTeam, createUser } from '../../support/factories.js';
import { startTlsTerminator, type TlsTerminator } from '../../support/tls-terminator.js';
import {
  startCallbackServer,
  startOAuthTestApp,
  TestClientProvider,
  type CallbackServer,
} from './sdk-client.js';

const missing = chromiumMissing();
/** `UPDATE_SCREENSHOTS=1 npm test -- test/e2e/oauth/chromium` rewrites the README's pictures. */
const SCREENSHOT_DIR = process.env.UPDATE_SCREENSHOTS === '1' ? join(process.cwd(), 'docs') : null;
const CLIENT_NAME = 'Example AI Client';

if (missing && runningInCi()) {
  // .ci/run installs Chromium, so under CI its absence is a broken machine, not a reason to skip.
  it('has Chromium under CI', () => {
    throw new Error(`CI is set but ${missing}`);
  });
}

// Skipped only where Chromium is not installed; the reason is in the suite's title and printed.
const suite = missing ? describe.skip : describe;
if (missing)
  process.stderr.write(`test/e2e/oauth/chromium.test.ts: real-browser tests skipped: ${missing}\n`);

suite(`the sign-in and consent pages in Chromium${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let tls: TlsTerminator | undefined;
  let t: TestApp | undefined;
  let callback: CallbackServer | undefined;
  let chromium: Browser | undefined;
  let base: string;
  let projectName: string;

  beforeAll(async () => {
    // Served over HTTPS, as in production, so the session cookie is the `__Host-` one.
    tls = await startTlsTerminator();
    t = await startOAuthTestApp({ PUBLIC_BASE_URL: tls.origin });
    tls.forwardTo(Number(new URL(t.url).port));
    base = tls.origin;
    callback = await startCallbackServer();
    chromium = await launchChromium({ trustSpki: [tls.spkiHash] });
    projectName = (await createProject(t, { city: 'Kingston' })).name;
  });
  afterAll(async () => {
    await chromium?.close();
    await callback?.close();
    await t?.close();
    await tls?.close();
  });

  let context: BrowserContext;
  let page: Page;
  /** Policy violations, script errors and every page of the service the browser loaded. */
  let watch: PageWatch;
  let documents: PageWatch['documents'];

  beforeEach(async () => {
    context = await chromium!.newContext({ viewport: DESKTOP });
    watch = await watchedPage(context, base);
    page = watch.page;
    documents = watch.documents;
  });
  afterEach(async () => {
    await context.close();
  });

  async function member(email: string, teams: { name: string; agentTier: string }[]) {
    const user = await createUser(t!, 'correct horse battery', email);
    const created = [];
    for (const spec of teams) {
      const team = await createTeam(t!, { plan: 'pro', ...spec });
      await addMember(t!, team.id, user.id);
      created.push(team);
    }
    return { user, teams: created };
  }

  /**
   * What an MCP client does on its first connection: the 401 starts discovery and registration,
   * and "opening the browser" loads the authorization URL in this page.
   */
  async function startConnecting() {
    const provider = new TestClientProvider(
      async (url) => {
        await page.goto(url.href);
        return null;
      },
      callback!.url,
      CLIENT_NAME,
    );
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider });
    await expect(new Client({ name: 'chromium-test', version: '1.0.0' }).connect(transport)).rejects.toThrow(
      UnauthorizedError,
    );
    return { provider, transport };
  }

  async function signIn(email: string, password: string) {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForLoadState();
  }

  async function sessionCookie() {
    return (await context.cookies(base)).find((c) => c.name.includes('pds_session'));
  }

  async function screenshot(name: string) {
    if (SCREENSHOT_DIR) await screenshotWidths(page, SCREENSHOT_DIR, name);
  }

  const expectStrictPolicyEverywhere = () => expectStrictPolicy(watch);

  it('signs in, picks a team, allows: the SDK exchanges the code and its token calls /mcp', async () => {
    const { teams } = await member('alex.morgan@example.com', [
      { name: 'Harbourfront Realty', agentTier: 'agent' },
      { name: 'Lakeshore Homes', agentTier: 'enterprise' },
      { name: 'Maple Leasing', agentTier: 'none' },
    ]);
    const { provider, transport } = await startConnecting();

    expect(new URL(page.url()).pathname).toBe('/login');
    await expect(
      page.getByRole('heading', { name: 'Sign in to Property Data Service' }).isVisible(),
    ).resolves.toBe(true);
    await screenshot('sign-in');
    await signIn('alex.morgan@example.com', 'correct horse battery');

    expect(new URL(page.url()).pathname).toBe('/oauth/consent');
    await expect(page.getByRole('heading', { name: `Connect ${CLIENT_NAME}` }).isVisible()).resolves.toBe(
      true,
    );
    const cookie = await sessionCookie();
    expect(cookie).toMatchObject({
      name: '__Host-pds_session',
      domain: '127.0.0.1',
      path: '/',
      secure: true,
      httpOnly: true,
      sameSite: 'Lax',
    });
    await expect(page.evaluate('document.cookie')).resolves.toBe('');

    const radio = (name: string) => page.getByRole('radio', { name });
    await expect(radio('Harbourfront Realty').isChecked()).resolves.toBe(false);
    await expect(radio('Lakeshore Homes').isChecked()).resolves.toBe(false);
    await expect(radio('Maple Leasing').isDisabled()).resolves.toBe(true);
    await radio('Lakeshore Homes').check();
    await screenshot('consent');
    await page.getByRole('button', { name: 'Allow' }).click();

    const back = await callback!.next();
    expect(back.searchParams.get('state')).toBe('client-state-42');
    const code = back.searchParams.get('code');
    expect(code).toBeTruthy();
    await page.getByText('You can close this window.').waitFor();

    await transport.finishAuth(code!);
    expect(provider.saved?.access_token).toMatch(/^pds_oat_/);
    const client = new Client({ name: 'chromium-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider }),
    );
    const result = await client.callTool({ name: 'list-projects', arguments: { city: 'Kingston' } });
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { data: { name: string }[] }).data.map((p) => p.name)).toContain(
      projectName,
    );
    await client.close();

    // The connection acts for the team picked in the browser, not the first one listed.
    const tokens = async (teamId: number) =>
      (
        await t!.op<{ accessTokens: { kind: string; clientId: string }[] }>(
          `query($teamId: Int!) { accessTokens(teamId: $teamId) { kind clientId } }`,
          { teamId },
        )
      ).accessTokens;
    await expect(tokens(teams[1].id)).resolves.toEqual([
      { kind: 'oauth', clientId: provider.client!.client_id },
    ]);
    await expect(tokens(teams[0].id)).resolves.toEqual([]);
    expectStrictPolicyEverywhere();
  });

  it('refuses a wrong password on the page, then continues to consent with the right one', async () => {
    await member('wrong.password@example.com', [{ name: 'Only Team', agentTier: 'agent' }]);
    await startConnecting();
    await signIn('wrong.password@example.com', 'not the password');

    expect(new URL(page.url()).pathname).toBe('/login');
    expect(documents.at(-1)?.status).toBe(401);
    await expect(page.getByRole('alert').textContent()).resolves.toContain(
      'The email or password is incorrect.',
    );
    await expect(page.getByLabel('Email').inputValue()).resolves.toBe('wrong.password@example.com');
    expect(await sessionCookie()).toBeUndefined();

    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForLoadState();
    expect(new URL(page.url()).pathname).toBe('/oauth/consent');
    // The only eligible team is chosen already.
    await expect(page.getByRole('radio', { name: 'Only Team' }).isChecked()).resolves.toBe(true);
    await page.getByRole('button', { name: 'Allow' }).click();
    expect((await callback!.next()).searchParams.get('code')).toBeTruthy();
    expectStrictPolicyEverywhere();
  });

  it('deny sends access_denied back to the client, which gets no token', async () => {
    await member('denies@example.com', [{ name: 'Denying Team', agentTier: 'agent' }]);
    const { provider } = await startConnecting();
    await signIn('denies@example.com', 'correct horse battery');
    await page.getByRole('button', { name: 'Deny' }).click();

    const back = await callback!.next();
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('client-state-42');
    expect(back.searchParams.get('code')).toBeNull();
    expect(provider.saved).toBeUndefined();
    expectStrictPolicyEverywhere();
  });

  it('the team picker: Allow with no team chosen asks for one; a team that is not eligible cannot be picked', async () => {
    await member('picker@example.com', [
      { name: 'North Agency', agentTier: 'agent' },
      { name: 'South Agency', agentTier: 'enterprise' },
      { name: 'Lapsed Agency', agentTier: 'none' },
    ]);
    await startConnecting();
    await signIn('picker@example.com', 'correct horse battery');

    const lapsed = page.getByRole('radio', { name: 'Lapsed Agency' });
    await expect(lapsed.isDisabled()).resolves.toBe(true);
    await expect(
      page.getByText('Needs an active Agent or Enterprise subscription').isVisible(),
    ).resolves.toBe(true);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForLoadState();
    expect(documents.at(-1)?.status).toBe(400);
    await expect(page.getByRole('alert').textContent()).resolves.toContain(
      'Choose the team the connection acts for.',
    );

    await page.getByRole('radio', { name: 'South Agency' }).check();
    await page.getByRole('button', { name: 'Allow' }).click();
    expect((await callback!.next()).searchParams.get('code')).toBeTruthy();
    expectStrictPolicyEverywhere();
  });

  it('a user with no eligible team sees why, and can only send a refusal back to the client', async () => {
    await member('no.agent@example.com', [{ name: 'Plain Pro Team', agentTier: 'none' }]);
    await startConnecting();
    await signIn('no.agent@example.com', 'correct horse battery');

    expect(documents.at(-1)?.status).toBe(403);
    await expect(page.getByRole('alert').textContent()).resolves.toContain(
      'needs an active Agent or Enterprise subscription',
    );
    await page.getByRole('button', { name: `Return to ${CLIENT_NAME}` }).click();
    expect((await callback!.next()).searchParams.get('error')).toBe('access_denied');
    expectStrictPolicyEverywhere();
  });

  it('signs out from the consent page and from the signed-in page: the session cookie is gone', async () => {
    await member('first.person@example.com', [{ name: 'First Team', agentTier: 'agent' }]);
    await member('second.person@example.com', [{ name: 'Second Team', agentTier: 'agent' }]);
    await startConnecting();
    await signIn('first.person@example.com', 'correct horse battery');
    const consentUrl = page.url();
    await expect(page.getByText('Signed in as first.person@example.com').isVisible()).resolves.toBe(true);

    await page.getByRole('button', { name: 'Use another account' }).click();
    await page.waitForLoadState();
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(await sessionCookie()).toBeUndefined();
    // The pending connection asks for a sign-in again, and another person can take it.
    await page.goto(consentUrl);
    expect(new URL(page.url()).pathname).toBe('/login');
    await signIn('second.person@example.com', 'correct horse battery');
    await expect(page.getByText('Signed in as second.person@example.com').isVisible()).resolves.toBe(true);
    await expect(page.getByRole('radio', { name: 'Second Team' }).isChecked()).resolves.toBe(true);

    await page.goto(`${base}/login`);
    await expect(page.getByText('You are signed in as second.person@example.com').isVisible()).resolves.toBe(
      true,
    );
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForLoadState();
    await expect(
      page.getByRole('heading', { name: 'Sign in to Property Data Service' }).isVisible(),
    ).resolves.toBe(true);
    expect(await sessionCookie()).toBeUndefined();
    expectStrictPolicyEverywhere();
  });
});
