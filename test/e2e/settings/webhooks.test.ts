import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser as Chromium, BrowserContext, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
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
import { addMember, createProject, createTeam, createUser } from '../../support/factories.js';
import { startOAuthTestApp } from '../oauth/sdk-client.js';

const missing = chromiumMissing();
/** `UPDATE_SCREENSHOTS=1 npm test -- test/e2e/settings/webhooks` rewrites the pictures in docs/. */
const SCREENSHOT_DIR = process.env.UPDATE_SCREENSHOTS === '1' ? join(process.cwd(), 'docs') : null;
const PASSWORD = 'correct horse battery';

if (missing && runningInCi()) {
  it('has Chromium under CI', () => {
    throw new Error(`CI is set but ${missing}`);
  });
}

// Skipped only where Chromium is not installed; the reason is in the suite's title and printed.
const suite = missing ? describe.skip : describe;
if (missing)
  process.stderr.write(`test/e2e/settings/webhooks.test.ts: real-browser tests skipped: ${missing}\n`);

/** A local receiver that verifies every signature with the secret the page showed. */
class Receiver {
  server!: Server;
  url = '';
  secret = '';
  received: { id: string; body: any; verified: boolean }[] = [];

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let verified = true;
        try {
          new Webhook(this.secret).verify(body, req.headers as Record<string, string>);
        } catch {
          verified = false;
        }
        this.received.push({ id: String(req.headers['webhook-id']), body: JSON.parse(body), verified });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  async waitFor(count: number): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (this.received.length < count) {
      if (Date.now() > deadline)
        throw new Error(`the receiver got ${this.received.length} of ${count} deliveries`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

suite(`the team webhooks pages in Chromium${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let chromium: Chromium;
  let context: BrowserContext;
  let page: Page;
  let watch: PageWatch;

  beforeAll(async () => {
    chromium = await launchChromium();
  });
  afterAll(async () => {
    await chromium?.close();
  });
  beforeEach(async () => {
    context = await chromium.newContext({ viewport: DESKTOP });
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  });
  afterEach(async () => {
    await context.close();
  });

  async function person(t: TestApp, role: string, team: { id: number }) {
    const user = await createUser(t, PASSWORD);
    await addMember(t, team.id, user.id, role);
    return user;
  }

  /** Opens a settings page; the sign-in form comes first and returns to it. */
  async function open(t: TestApp, path: string, email: string) {
    watch = await watchedPage(context, t.url);
    page = watch.page;
    await page.goto(`${t.url}${path}`);
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

  const ENDPOINTS = `query($t: Int!) { webhookEndpoints(teamId: $t) { id url eventTypes enabled disabledReason } }`;
  const DELIVERIES = `query($e: Int!) { webhookDeliveries(endpointId: $e) { id eventId status attempts lastStatusCode lastLatencyMs } }`;

  describe('with a local receiver (WEBHOOK_ALLOW_LOOPBACK)', () => {
    let t: TestApp;
    const receiver = new Receiver();
    beforeAll(async () => {
      await receiver.start();
      t = await startOAuthTestApp({ WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_RETRY_SCHEDULE: '1,1' });
    });
    afterAll(async () => {
      await t?.close();
      await receiver.close();
    });

    it('an owner registers an endpoint, an event is delivered and logged, and redelivered with the same webhook-id', async () => {
      const team = await createTeam(t, { plan: 'pro', name: 'Harbourfront Realty' });
      const owner = await person(t, 'owner', team);
      await open(t, `/settings/webhooks?team=${team.id}`, owner.email);
      expect(new URL(page.url()).pathname).toBe('/settings/webhooks');
      await expect(page.getByText('The team has no webhook endpoints yet.').isVisible()).resolves.toBe(true);

      await page.getByLabel(/^URL/).fill(receiver.url);
      await page.getByRole('checkbox', { name: 'project.changed' }).check();
      await submit('Register endpoint');
      expect(lastStatus()).toBe(201);
      const secret = (await page.locator('#new-secret').textContent())!.trim();
      expect(secret).toMatch(/^whsec_/);
      receiver.secret = secret;
      await expect(page.getByText('Store it now, it will not be shown again.').isVisible()).resolves.toBe(
        true,
      );
      await page.getByRole('button', { name: 'Copy' }).click();
      await expect(page.evaluate('navigator.clipboard.readText()')).resolves.toBe(secret);
      const [endpoint] = (await t.op<any>(ENDPOINTS, { t: team.id })).webhookEndpoints;
      expect(endpoint).toMatchObject({ url: receiver.url, eventTypes: ['project.changed'], enabled: true });

      // A change the endpoint asked for reaches the receiver, signed with the secret shown.
      const project = await createProject(t, { name: 'Webhook Towers' });
      await t.app.deps.em
        .fork()
        .getConnection()
        .execute(`update project set sales_status = 'selling' where id = ?`, [project.id]);
      await receiver.waitFor(1);
      expect(receiver.received[0]).toMatchObject({
        verified: true,
        body: { type: 'project.changed', data: { subject: { type: 'project', id: project.id } } },
      });

      // The list shows the endpoint; the delivery log shows the delivery as GraphQL does.
      await page.goto(`${t.url}/settings/webhooks?team=${team.id}`);
      await expect(page.content()).resolves.not.toContain(secret);
      const row = page.getByRole('row', { name: new RegExp(receiver.url) });
      await expect(row.textContent()).resolves.toMatch(/project\.changed[\s\S]*enabled/);
      await screenshot('webhooks');
      await expectFitsPhone();
      await page.getByRole('link', { name: `Deliveries of ${receiver.url}` }).click();
      await page.waitForLoadState();
      const logged = async () => {
        const [d] = (await t.op<any>(DELIVERIES, { e: endpoint.id })).webhookDeliveries;
        return d;
      };
      let delivery = await logged();
      for (let i = 0; i < 50 && delivery.status !== 'delivered'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        delivery = await logged();
      }
      await page.reload();
      const logRow = page.getByRole('row', { name: new RegExp(`#${delivery.eventId}`) });
      const logText = (await logRow.textContent())!;
      expect(logText).toMatch(/project\.changed/);
      expect(logText).toMatch(/delivered/);
      expect(logText).toContain('200');
      expect(logText).toContain(`${delivery.lastLatencyMs} ms`);
      expect(delivery).toMatchObject({ status: 'delivered', attempts: 1, lastStatusCode: 200 });

      await page.getByRole('button', { name: `Redeliver event ${delivery.eventId}` }).click();
      await page.waitForLoadState();
      await expect(page.getByRole('status').first().textContent()).resolves.toMatch(/queued again/);
      await receiver.waitFor(2);
      expect(receiver.received[1].id).toBe(receiver.received[0].id);
      expect(receiver.received[1].verified).toBe(true);

      // Disable, then enable, then delete: each as GraphQL then reports it.
      await page.goto(`${t.url}/settings/webhooks?team=${team.id}`);
      await page.getByRole('button', { name: `Disable ${receiver.url}` }).click();
      await page.waitForLoadState();
      await expect(page.getByRole('row', { name: new RegExp(receiver.url) }).textContent()).resolves.toMatch(
        /disabled[\s\S]*disabled by the team/,
      );
      expect((await t.op<any>(ENDPOINTS, { t: team.id })).webhookEndpoints[0]).toMatchObject({
        enabled: false,
        disabledReason: 'disabled by the team',
      });
      await page.getByRole('button', { name: `Enable ${receiver.url}` }).click();
      await page.waitForLoadState();
      expect((await t.op<any>(ENDPOINTS, { t: team.id })).webhookEndpoints[0].enabled).toBe(true);
      await page.getByRole('link', { name: `Delete ${receiver.url}` }).click();
      await page.waitForLoadState();
      await submit('Delete endpoint');
      await expect(page.getByText('The team has no webhook endpoints yet.').isVisible()).resolves.toBe(true);
      expect((await t.op<any>(ENDPOINTS, { t: team.id })).webhookEndpoints).toEqual([]);
      expectStrictPolicy(watch);
    });

    it('a member is refused the page and its actions; an Essential team is told the plan', async () => {
      const team = await createTeam(t, { plan: 'pro' });
      const member = await person(t, 'member', team);
      const { createWebhookEndpoint } = await t.op<any>(
        `mutation($i: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $i) { endpoint { id } } }`,
        { i: { teamId: team.id, url: receiver.url, eventTypes: [] } },
      );
      const id = createWebhookEndpoint.endpoint.id;
      await open(t, `/settings/webhooks?team=${team.id}`, member.email);
      expect(lastStatus()).toBe(403);
      await expect(
        page.getByText(/Only an owner or admin of this team may see and manage its webhooks/).isVisible(),
      ).resolves.toBe(true);
      await expect(page.content()).resolves.not.toContain(receiver.url);
      await expect(page.getByRole('button', { name: 'Register endpoint' }).count()).resolves.toBe(0);
      await page.goto(`${t.url}/settings/webhooks/${id}?team=${team.id}`);
      expect(lastStatus()).toBe(403);
      // A form of the member's own session, posted to disable the endpoint, is refused by the service.
      await page.goto(`${t.url}/settings/api?team=${team.id}`);
      const fields = await page.evaluate<Record<string, string>>(
        `Object.fromEntries(new FormData(document.querySelector('form[action="/settings/api/tokens"]')).entries())`,
      );
      const forged = await page.request.post(`${t.url}/settings/webhooks/${id}/disable`, {
        form: { team: fields.team, nonce: fields.nonce, token: fields.token },
        headers: { origin: t.url, 'sec-fetch-site': 'same-origin' },
      });
      expect(forged.status()).toBe(403);
      expect(await forged.text()).toMatch(
        /Only an owner or admin of this team may see and manage its webhooks/,
      );
      expect((await t.op<any>(ENDPOINTS, { t: team.id })).webhookEndpoints[0].enabled).toBe(true);

      const essential = await createTeam(t, { plan: 'essential' });
      const owner = await person(t, 'owner', essential);
      await context.clearCookies();
      await open(t, `/settings/webhooks?team=${essential.id}`, owner.email);
      expect(lastStatus()).toBe(403);
      await expect(
        page
          .getByText(/Pro or Elite plan/)
          .first()
          .isVisible(),
      ).resolves.toBe(true);
    });
  });

  describe('with the production URL rules', () => {
    let t: TestApp;
    beforeAll(async () => {
      // The sign-in pages need the public address the browser uses.
      t = await startOAuthTestApp();
    });
    afterAll(async () => {
      await t?.close();
    });

    it('bad input gets a clear message and changes nothing; another team’s endpoint is not found', async () => {
      const team = await createTeam(t, { plan: 'elite' });
      const owner = await person(t, 'owner', team);
      const other = await createTeam(t, { plan: 'pro' });
      const { createWebhookEndpoint } = await t.op<any>(
        `mutation($i: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $i) { endpoint { id } } }`,
        { i: { teamId: other.id, url: 'https://hooks.example.com/other', eventTypes: [] } },
      );
      const theirs = createWebhookEndpoint.endpoint.id;
      await open(t, `/settings/webhooks?team=${team.id}`, owner.email);

      const cases: [string, string[], RegExp][] = [
        ['http://hooks.example.com/pds', ['project.changed'], /URL: must be an https:\/\/ URL/],
        [
          'https://10.1.2.3/pds',
          ['project.changed'],
          /URL: must not point at a private, loopback, link-local or reserved address/,
        ],
        [
          'https://127.0.0.1/pds',
          ['*'],
          /URL: must not point at a private, loopback, link-local or reserved address/,
        ],
        ['https://hooks.example.com/pds', [], /Event types: choose at least one event type/],
      ];
      for (const [url, types, message] of cases) {
        await page.getByLabel(/^URL/).fill(url);
        for (const type of types)
          await page.getByRole('checkbox', { name: type === '*' ? /Every event type/ : type }).check();
        await submit('Register endpoint');
        expect([url, lastStatus()]).toEqual([url, 422]);
        await expect(alertText()).resolves.toMatch(message);
        await expect(alertText()).resolves.toMatch(/Nothing was changed/);
        // The form keeps what was typed.
        await expect(page.getByLabel(/^URL/).inputValue()).resolves.toBe(url);
        for (const type of types)
          await page.getByRole('checkbox', { name: type === '*' ? /Every event type/ : type }).uncheck();
      }
      expect((await t.op<any>(ENDPOINTS, { t: team.id })).webhookEndpoints).toEqual([]);

      // Another team's endpoint, in a link or in a form, is not found here and is left alone.
      await page.goto(`${t.url}/settings/webhooks/${theirs}?team=${team.id}`);
      expect(lastStatus()).toBe(404);
      await expect(alertText()).resolves.toMatch(/No webhook endpoint with id/);
      await page.goto(`${t.url}/settings/webhooks?team=${team.id}`);
      const fields = await page.evaluate<Record<string, string>>(
        `Object.fromEntries(new FormData(document.querySelector('form[action="/settings/webhooks"]')).entries())`,
      );
      const forged = await page.request.post(`${t.url}/settings/webhooks/${theirs}/delete`, {
        form: { team: fields.team, nonce: fields.nonce, token: fields.token },
        headers: { origin: t.url, 'sec-fetch-site': 'same-origin' },
      });
      expect(forged.status()).toBe(404);
      expect(await forged.text()).toMatch(/No webhook endpoint or delivery with that id in this team/);
      expect((await t.op<any>(ENDPOINTS, { t: other.id })).webhookEndpoints).toHaveLength(1);
      expectStrictPolicy(watch);
    });
  });

  async function screenshot(name: string) {
    if (SCREENSHOT_DIR) await screenshotWidths(page, SCREENSHOT_DIR, `settings-${name}`);
  }

  /** At phone width the page needs no sideways scrolling. */
  async function expectFitsPhone() {
    await page.setViewportSize(PHONE);
    await expect(page.evaluate('document.documentElement.scrollWidth')).resolves.toBeLessThanOrEqual(
      PHONE.width,
    );
    await page.setViewportSize(DESKTOP);
  }
});
