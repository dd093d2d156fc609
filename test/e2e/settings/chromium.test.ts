import { join } from 'node:path';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Browser as Chromium, BrowserContext, Page } from 'playwright-core';
import type { TestApp } from '../../support/app.js';
import {
  DESKTOP,
  PHONE,
  chromiumMissing,
  expectStrictPolicy,
  launchChromium,
  runningInCi,
  screenshotWidths,
  watchedPage,
  type PageWatch,
} from '../../support/chromium.js';
import {
  addMember,
  createAccessToken,
  createApiKey,
  createProject,
  createTeam,
  createUser,
  setPlan,
} from '../../support/factories.js';
import { Browser } from '../oauth/browser.js';
import { HeadlessClientProvider, startOAuthTestApp } from '../oauth/sdk-client.js';

const missing = chromiumMissing();
/** `UPDATE_SCREENSHOTS=1 npm test -- test/e2e/settings/chromium` rewrites the pictures in docs/. */
const SCREENSHOT_DIR = process.env.UPDATE_SCREENSHOTS === '1' ? join(process.cwd(), 'docs') : null;
const PASSWORD = 'correct horse battery';

if (missing && runningInCi()) {
  // .ci/run installs Chromium, so under CI its absence is a broken machine, not a reason to skip.
  it('has Chromium under CI', () => {
    throw new Error(`CI is set but ${missing}`);
  });
}

// Skipped only where Chromium is not installed; the reason is in the suite's title and printed.
const suite = missing ? describe.skip : describe;
if (missing)
  process.stderr.write(`test/e2e/settings/chromium.test.ts: real-browser tests skipped: ${missing}\n`);

suite(`the team settings pages in Chromium${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let t: TestApp;
  let chromium: Chromium;
  let base: string;
  let buildingId: number;

  beforeAll(async () => {
    t = await startOAuthTestApp();
    base = t.url;
    chromium = await launchChromium();
    const project = await createProject(t, { city: 'Kingston' });
    const { createBuilding } = await t.op<{ createBuilding: { id: number } }>(
      `mutation($p: Int!) { createBuilding(input: {projectId: $p, name: "Tower A", addresses: ["1 Harbour Street"]}) { id } }`,
      { p: project.id },
    );
    buildingId = createBuilding.id;
  });
  afterAll(async () => {
    await chromium?.close();
    await t?.close();
  });

  let context: BrowserContext;
  let page: Page;
  /** Policy violations, script errors and every page of the service the browser loaded. */
  let watch: PageWatch;

  beforeEach(async () => {
    context = await chromium.newContext({ viewport: DESKTOP });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    watch = await watchedPage(context, base);
    page = watch.page;
  });
  afterEach(async () => {
    await context.close();
  });

  async function person(role: string, team: { id: number }, email?: string) {
    const user = await createUser(t, PASSWORD, email);
    await addMember(t, team.id, user.id, role);
    return user;
  }

  /** Opens a settings page; the sign-in form comes first and returns to it. */
  async function open(path: string, email: string) {
    await page.goto(`${base}${path}`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForLoadState();
  }

  async function submit(button: string) {
    await page.getByRole('button', { name: button }).click();
    await page.waitForLoadState();
  }

  const lastStatus = () => watch.documents.at(-1)?.status;
  const alertText = () => page.getByRole('alert').first().textContent();
  const shownSecret = async () => (await page.locator('#new-secret').textContent())!.trim();

  async function buildingLink(secret: string): Promise<number> {
    const res = await fetch(`${base}/api/v1/building-links/${buildingId}`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    return res.status;
  }

  async function mcpStatus(secret: string): Promise<number> {
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${secret}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    return res.status;
  }

  /** The team's keys as GraphQL reports them (the pages and GraphQL call the same services). */
  async function keysByGraphql(teamId: number) {
    const data = await t.op<{
      apiKeys: { id: number; name: string; prefix: string; scopes: string[]; revokedAt: string | null }[];
    }>(`query($t: Int!) { apiKeys(teamId: $t, includeInactive: true) { id name prefix scopes revokedAt } }`, {
      t: teamId,
    });
    return data.apiKeys;
  }

  async function screenshot(name: string) {
    if (SCREENSHOT_DIR) await screenshotWidths(page, SCREENSHOT_DIR, `settings-${name}`);
  }

  const expectStrictPolicyEverywhere = () => expectStrictPolicy(watch);

  /** At phone width the page needs no sideways scrolling. */
  async function expectFitsPhone() {
    await page.setViewportSize(PHONE);
    await expect(page.evaluate('document.documentElement.scrollWidth')).resolves.toBeLessThanOrEqual(
      PHONE.width,
    );
    await page.setViewportSize(DESKTOP);
  }

  it('an owner on Pro creates a key, copies it, calls Building Link with it, rolls it and revokes it', async () => {
    const team = await createTeam(t, { plan: 'pro', name: 'Harbourfront Realty' });
    const owner = await person('owner', team);
    await open(`/settings/api-keys?team=${team.id}`, owner.email);
    expect(new URL(page.url()).pathname).toBe('/settings/api-keys');
    await expect(page.getByRole('heading', { name: 'API keys' }).isVisible()).resolves.toBe(true);
    await expect(page.getByText('The team has no API keys yet.').isVisible()).resolves.toBe(true);

    await page.getByLabel('Name').fill('Listings sync');
    await page.getByRole('checkbox', { name: /building-links/ }).check();
    await submit('Create key');
    expect(lastStatus()).toBe(201);
    const secret = await shownSecret();
    expect(secret).toMatch(/^pds_key_/);
    await expect(page.getByText('Store it now, it will not be shown again.').isVisible()).resolves.toBe(true);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    await expect(page.evaluate('navigator.clipboard.readText()')).resolves.toBe(secret);
    await screenshot('api-keys');
    await expectFitsPhone();

    expect(await buildingLink(secret)).toBe(200);
    const [listed] = await keysByGraphql(team.id);
    expect(listed).toMatchObject({
      name: 'Listings sync',
      prefix: secret.slice(0, 12),
      scopes: ['building-links'],
    });
    const row = page.getByRole('row', { name: /Listings sync/ });
    await expect(row.textContent()).resolves.toContain(secret.slice(0, 12));
    // The secret is on this page only: the list shows the prefix after a reload.
    await page.goto(`${base}/settings/api-keys?team=${team.id}`);
    await expect(page.content()).resolves.not.toContain(secret);
    await expect(page.getByRole('row', { name: /Listings sync/ }).textContent()).resolves.toMatch(/active/);

    await page.getByRole('link', { name: 'Roll Listings sync' }).click();
    await page.waitForLoadState();
    await expect(page.getByRole('heading', { name: 'Roll key Listings sync' }).isVisible()).resolves.toBe(
      true,
    );
    await page.getByLabel('The old secret stops working').selectOption({ label: 'Immediately' });
    await submit('Roll key');
    const rolled = await shownSecret();
    expect(rolled).not.toBe(secret);
    expect(await buildingLink(rolled)).toBe(200);
    expect(await buildingLink(secret)).toBe(401);

    await page.goto(`${base}/settings/api-keys?team=${team.id}`);
    await page.getByRole('link', { name: 'Revoke Listings sync' }).click();
    await page.waitForLoadState();
    await expect(page.getByRole('heading', { name: 'Revoke key Listings sync?' }).isVisible()).resolves.toBe(
      true,
    );
    // Cancelling changes nothing.
    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.waitForLoadState();
    expect(await buildingLink(rolled)).toBe(200);
    await page.getByRole('link', { name: 'Revoke Listings sync' }).click();
    await page.waitForLoadState();
    await submit('Revoke key');
    expect(new URL(page.url()).searchParams.get('notice')).toBe('key-revoked');
    await expect(page.getByRole('status').first().textContent()).resolves.toContain('The key was revoked');
    expect(await buildingLink(rolled)).toBe(401);
    const revoked = (await keysByGraphql(team.id)).find((k) => k.prefix === rolled.slice(0, 12));
    expect(revoked?.revokedAt).toBeTruthy();
    expectStrictPolicyEverywhere();
  });

  it('on Essential the Fusion scopes are disabled with the upgrade hint, and a forged scope is refused', async () => {
    const team = await createTeam(t, { plan: 'essential' });
    const owner = await person('owner', team);
    await open(`/settings/api-keys?team=${team.id}`, owner.email);
    for (const scope of ['building-links', 'floorplan-match']) {
      await expect(page.getByRole('checkbox', { name: new RegExp(scope) }).isDisabled()).resolves.toBe(true);
    }
    await expect(page.locator('#scopes-hint').textContent()).resolves.toMatch(/Pro or Elite.*Upgrade/s);

    // A tampered form (the disabled box enabled by hand) is checked again on the server.
    await page.getByLabel('Name').fill('forged');
    await page.evaluate(`document.querySelector('input[value="building-links"]').disabled = false`);
    await page.getByRole('checkbox', { name: /building-links/ }).check();
    await submit('Create key');
    expect(lastStatus()).toBe(422);
    await expect(alertText()).resolves.toMatch(
      /Fusion scopes require a Pro or Elite plan.*Nothing was changed/,
    );
    expect(await keysByGraphql(team.id)).toEqual([]);

    await page.getByLabel('Name').fill('no scopes');
    await submit('Create key');
    expect(lastStatus()).toBe(201);
    expect((await keysByGraphql(team.id)).map((k) => [k.name, k.scopes])).toEqual([['no scopes', []]]);
    expectStrictPolicyEverywhere();
  });

  it('bad input gets a clear message and changes nothing', async () => {
    const team = await createTeam(t, { plan: 'pro' });
    const owner = await person('owner', team);
    const other = await createTeam(t, { plan: 'pro' });
    const foreign = await createApiKey(t, other.id, ['building-links']);
    await open(`/settings/api-keys?team=${team.id}`, owner.email);
    const form = `document.querySelector('form[action="/settings/api-keys"]')`;

    // An empty name and a 201-character one (the browser's own checks taken off, as a script could).
    await page.evaluate(`${form}.querySelector('#key-name').removeAttribute('required')`);
    await submit('Create key');
    expect(lastStatus()).toBe(422);
    await expect(alertText()).resolves.toBe('Name: must not be empty. Nothing was changed.');
    await page.evaluate(`${form}.querySelector('#key-name').removeAttribute('maxlength')`);
    await page.getByLabel('Name').fill('x'.repeat(201));
    await submit('Create key');
    await expect(alertText()).resolves.toBe('Name: must be at most 200 characters. Nothing was changed.');

    // An unknown scope, and an expiry in the past.
    await page.getByLabel('Name').fill('typo');
    await page.evaluate(`document.querySelector('input[value="floorplan-match"]').value = 'admin'`);
    await page.getByRole('checkbox', { name: /floorplan-match/ }).check();
    await submit('Create key');
    await expect(alertText()).resolves.toMatch(/^Scopes: must be one of: building-links, floorplan-match/);
    // The refused form keeps what was typed.
    await expect(page.getByLabel('Name').inputValue()).resolves.toBe('typo');
    await page.getByLabel(/Expires on/).fill('2020-01-01');
    await submit('Create key');
    await expect(alertText()).resolves.toBe('Expires on: must be in the future. Nothing was changed.');
    expect(await keysByGraphql(team.id)).toEqual([]);

    // Another team's key id in a form.
    const own = await createApiKey(t, team.id, ['building-links']);
    await page.goto(`${base}/settings/api-keys/${own.id}/revoke?team=${team.id}`);
    await page.evaluate(`document.querySelector('form').action = '/settings/api-keys/${foreign.id}/revoke'`);
    await submit('Revoke key');
    expect(lastStatus()).toBe(422);
    await expect(alertText()).resolves.toBe(
      `No API key with id ${foreign.id} in this team. Nothing was changed.`,
    );
    expect(await buildingLink(foreign.secret)).toBe(200);
    expect(await buildingLink(own.secret)).toBe(200);
    await page.goto(`${base}/settings/api-keys/${foreign.id}/roll?team=${team.id}`);
    expect(lastStatus()).toBe(404);

    // A double submit: the same form posted again creates nothing more.
    await page.goto(`${base}/settings/api-keys?team=${team.id}`);
    await page.getByLabel('Name').fill('once');
    const fields = await page.evaluate(`Object.fromEntries(new FormData(${form}).entries())`);
    await submit('Create key');
    expect(lastStatus()).toBe(201);
    const again = await page.request.post(`${base}/settings/api-keys`, {
      form: fields as Record<string, string>,
      headers: { origin: base },
    });
    expect(again.status()).toBe(409);
    expect(await again.text()).toContain('This form was already submitted, so nothing was changed');
    expect((await keysByGraphql(team.id)).filter((k) => k.name === 'once')).toHaveLength(1);

    // An expired session: the form is refused and nothing is created.
    await page.goto(`${base}/settings/api-keys?team=${team.id}`);
    await page.getByLabel('Name').fill('after sign-out');
    await context.clearCookies();
    await submit('Create key');
    expect(lastStatus()).toBe(401);
    await expect(
      page.getByText('Your session has expired or you signed out, so nothing was changed.').isVisible(),
    ).resolves.toBe(true);
    expect((await keysByGraphql(team.id)).filter((k) => k.name === 'after sign-out')).toEqual([]);
    expectStrictPolicyEverywhere();
  });

  it('API settings: creates and revokes an MCP token; disconnecting a client refuses its token on /mcp at once', async () => {
    const team = await createTeam(t, { plan: 'pro', agentTier: 'agent', name: 'Lakeshore Homes' });
    const owner = await person('owner', team);
    const provider = new HeadlessClientProvider(new Browser(base), owner);
    const serverUrl = new URL(`${base}/mcp`);
    expect(await auth(provider, { serverUrl })).toBe('REDIRECT');
    expect(await auth(provider, { serverUrl, authorizationCode: provider.code })).toBe('AUTHORIZED');
    const connectorToken = provider.saved!.access_token;
    expect(await mcpStatus(connectorToken)).toBe(200);

    await open(`/settings/api?team=${team.id}`, owner.email);
    await page.getByLabel('Name').fill('Claude Desktop');
    await submit('Create token');
    expect(lastStatus()).toBe(201);
    const token = await shownSecret();
    expect(token).toMatch(/^pds_mcp_/);
    expect(await mcpStatus(token)).toBe(200);
    await expect(page.getByRole('row', { name: /Headless Test Client/ }).textContent()).resolves.toContain(
      '127.0.0.1',
    );
    await screenshot('api');
    await expectFitsPhone();

    await page.getByRole('link', { name: 'Revoke Claude Desktop' }).click();
    await page.waitForLoadState();
    await submit('Revoke token');
    await expect(page.getByRole('status').first().textContent()).resolves.toContain('The token was revoked');
    expect(await mcpStatus(token)).toBe(401);
    const tokens = await t.op<{ accessTokens: { name: string; revokedAt: string | null }[] }>(
      `query($t: Int!) { accessTokens(teamId: $t, includeInactive: true) { name revokedAt } }`,
      { t: team.id },
    );
    expect(tokens.accessTokens.find((x) => x.name === 'Claude Desktop')?.revokedAt).toBeTruthy();

    const clients = await t.op<{ connectedClients: { clientName: string }[] }>(
      `query($t: Int!) { connectedClients(teamId: $t) { clientName } }`,
      { t: team.id },
    );
    expect(clients.connectedClients).toEqual([{ clientName: 'Headless Test Client' }]);
    await page.getByRole('link', { name: 'Disconnect Headless Test Client' }).click();
    await page.waitForLoadState();
    await expect(
      page.getByRole('heading', { name: 'Disconnect Headless Test Client?' }).isVisible(),
    ).resolves.toBe(true);
    await submit('Disconnect');
    await expect(page.getByRole('status').first().textContent()).resolves.toContain('was disconnected');
    expect(await mcpStatus(connectorToken)).toBe(401);
    await expect(page.getByText('No AI clients are connected.').isVisible()).resolves.toBe(true);
    const after = await t.op<{ connectedClients: unknown[] }>(
      `query($t: Int!) { connectedClients(teamId: $t) { id } }`,
      {
        t: team.id,
      },
    );
    expect(after.connectedClients).toEqual([]);
    expectStrictPolicyEverywhere();
  });

  it('a member sees the keys but cannot manage them, and manages only their own tokens', async () => {
    const team = await createTeam(t, { plan: 'pro' });
    const owner = await person('owner', team);
    const member = await person('member', team);
    const key = await createApiKey(t, team.id, ['building-links']);
    const ownersToken = await createAccessToken(t, team.id, owner.id);
    await open(`/settings/api-keys?team=${team.id}`, member.email);
    await expect(page.getByRole('row').count()).resolves.toBe(2);
    await expect(
      page.getByText('Only an owner or admin of the team can create, roll or revoke keys.').isVisible(),
    ).resolves.toBe(true);
    await expect(page.getByRole('link', { name: /^Revoke / }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Create key' }).count()).resolves.toBe(0);

    // Going to the confirmation page directly, or forging its form, is refused on the server.
    await page.goto(`${base}/settings/api-keys/${key.id}/revoke?team=${team.id}`);
    expect(lastStatus()).toBe(403);
    await expect(alertText()).resolves.toMatch(/Only an owner or admin of this team may manage its keys/);
    await page.goto(`${base}/settings/api?team=${team.id}`);
    const fields = await page.evaluate<Record<string, string>>(
      `Object.fromEntries(new FormData(document.querySelector('form[action="/settings/api/tokens"]')).entries())`,
    );
    const forged = await page.request.post(`${base}/settings/api-keys/${key.id}/revoke`, {
      form: { team: fields.team, nonce: fields.nonce, token: fields.token },
      headers: { origin: base },
    });
    expect(forged.status()).toBe(403);
    expect(await buildingLink(key.secret)).toBe(200);

    // The forged post used up that form's one-time id: a fresh page has a new one.
    await page.reload();
    await page.getByLabel('Name').fill('member laptop');
    await submit('Create token');
    const mine = await shownSecret();
    expect(await mcpStatus(mine)).toBe(200);
    await page.goto(`${base}/settings/api?team=${team.id}`);
    await expect(page.getByRole('link', { name: /^Revoke / }).count()).resolves.toBe(1);
    await page.goto(`${base}/settings/api/tokens/${ownersToken.id}/revoke?team=${team.id}`);
    expect(lastStatus()).toBe(404);
    expect(await mcpStatus(ownersToken.secret)).toBe(200);
    await page.goto(`${base}/settings/api?team=${team.id}`);
    await page.getByRole('link', { name: 'Revoke member laptop' }).click();
    await page.waitForLoadState();
    await submit('Revoke token');
    expect(await mcpStatus(mine)).toBe(401);
    expectStrictPolicyEverywhere();
  });

  it('a person in several teams picks one; the overview names plan, tier and standing; another team is refused', async () => {
    const a = await createTeam(t, { plan: 'elite', agentTier: 'enterprise', name: 'North Agency' });
    const b = await createTeam(t, { plan: 'pro', name: 'South Agency' });
    const stranger = await createTeam(t, { plan: 'pro', name: 'Stranger Team' });
    const user = await person('admin', a);
    await addMember(t, b.id, user.id, 'member');
    await setPlan(t, b.id, { subscriptionStatus: 'past_due' });

    await open('/settings', user.email);
    await expect(page.getByRole('heading', { name: 'Choose a team' }).isVisible()).resolves.toBe(true);
    await page.getByRole('link', { name: 'North Agency' }).click();
    await page.waitForLoadState();
    const facts = await page.locator('dl.facts').first().textContent();
    expect(facts).toMatch(/North Agency/);
    expect(facts).toMatch(/elite/);
    expect(facts).toMatch(/enterprise/);
    expect(facts).toMatch(/active/);
    await expect(page.getByText('In good standing').isVisible()).resolves.toBe(true);
    await screenshot('overview');
    await expectFitsPhone();

    await page.goto(`${base}/settings?team=${b.id}`);
    await expect(
      page.getByText(/A payment has been due since .* 7-day grace period/).isVisible(),
    ).resolves.toBe(true);
    await setPlan(t, b.id, { subscriptionStatus: 'canceled' });
    await page.reload();
    await expect(alertText()).resolves.toMatch(/^Canceled: .* access has stopped/);
    await page.goto(`${base}/settings?team=${stranger.id}`);
    expect(lastStatus()).toBe(403);
    await expect(alertText()).resolves.toBe(`You are not a member of team ${stranger.id}.`);
    await expect(page.getByRole('link', { name: 'Stranger Team' }).count()).resolves.toBe(0);
    expectStrictPolicyEverywhere();
  });

  it('the usage page shows a call made with a key created in the browser, as GraphQL does', async () => {
    const team = await createTeam(t, { plan: 'elite', name: 'Usage Realty' });
    const owner = await person('owner', team);
    await open(`/settings/api-keys?team=${team.id}`, owner.email);
    await page.getByLabel('Name').fill('Nightly import');
    await page.getByRole('checkbox', { name: /building-links/ }).check();
    await page.getByRole('checkbox', { name: /floorplan-match/ }).check();
    await submit('Create key');
    const secret = await shownSecret();
    for (let i = 0; i < 2; i++) expect(await buildingLink(secret)).toBe(200);
    // The background write, without waiting for its interval.
    await t.app.deps.usage.flush();

    await page.getByRole('link', { name: 'Usage' }).click();
    await page.waitForLoadState();
    await expect(page.getByRole('heading', { name: 'Usage', exact: true }).isVisible()).resolves.toBe(true);
    const row = page.getByRole('row', { name: /Nightly import/ }).first();
    await expect(row.locator('td[data-label="Today"]').textContent()).resolves.toBe('2');
    await expect(
      page.getByRole('img', { name: /Requests per day with all of the team/ }).isVisible(),
    ).resolves.toBe(true);
    const windows = page.getByRole('row', { name: /Nightly import building-links/ });
    await expect(windows.locator('td[data-label="Remaining"]').textContent()).resolves.toBe('118');
    await screenshot('usage');
    await expectFitsPhone();

    const { teamUsage } = await t.op<{
      teamUsage: {
        credentials: { name: string; daily: number[] }[];
        windows: { scope: string; remaining: number }[];
      };
    }>(
      `query($t: Int!) { teamUsage(teamId: $t) { credentials { name daily } windows { scope remaining } } }`,
      { t: team.id },
    );
    expect(teamUsage.credentials.map((c) => [c.name, c.daily.at(-1)])).toEqual([['Nightly import', 2]]);
    expect(teamUsage.windows).toEqual([
      { scope: 'building-links', remaining: 118 },
      { scope: 'floorplan-match', remaining: 1000 },
    ]);
    expectStrictPolicyEverywhere();
  });

  it('works without JavaScript apart from copying: the secret is shown and selectable', async () => {
    await context.close();
    context = await chromium.newContext({ viewport: PHONE, javaScriptEnabled: false });
    watch = await watchedPage(context, base);
    page = watch.page;
    const team = await createTeam(t, { plan: 'pro' });
    const owner = await person('owner', team);
    await open(`/settings/api-keys?team=${team.id}`, owner.email);
    await page.getByLabel('Name').fill('no script');
    await page.getByRole('checkbox', { name: /building-links/ }).check();
    await submit('Create key');
    const secret = await shownSecret();
    expect(await buildingLink(secret)).toBe(200);
    await expect(page.getByRole('button', { name: 'Copy' }).isVisible()).resolves.toBe(false);
    await page.getByRole('link', { name: 'Revoke no script' }).click();
    await page.waitForLoadState();
    await submit('Revoke key');
    expect(await buildingLink(secret)).toBe(401);
  });
});
