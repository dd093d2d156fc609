import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser as Chromium, BrowserContext, Page } from 'playwright-core';
import { seedDemo, type DemoCredentials } from '../../../src/demo/seed.js';
import type { TestApp } from '../../support/app.js';
import {
  DESKTOP,
  chromiumMissing,
  expectStrictPolicy,
  launchChromium,
  runningInCi,
  watchedPage,
  type PageWatch,
} from '../../support/chromium.js';
import { startOAuthTestApp } from '../oauth/sdk-client.js';

/**
 * A newcomer's first run, as docs/settings.md tells it, in Chromium against the demo data `npm
 * start` seeds: sign in at /login as pro@demo.example.com with the documented password, create a
 * key with the Building Link scope, call Building Link with the command docs/integrators.md shows,
 * see the call on the Usage page within a minute (the background write at its default interval,
 * not forced), and GraphQL's usage agrees with the page.
 */
const ROOT = join(import.meta.dirname, '../../..');
const run = promisify(execFile);
const missing = chromiumMissing();

if (missing && runningInCi()) {
  it('has Chromium under CI', () => {
    throw new Error(`CI is set but ${missing}`);
  });
}

const suite = missing ? describe.skip : describe;
if (missing)
  process.stderr.write(`test/e2e/settings/newcomer.test.ts: real-browser test skipped: ${missing}\n`);

const doc = (name: string) => readFileSync(join(ROOT, 'docs', name), 'utf8');

/** The first run's section of docs/settings.md. */
function firstRun(): string {
  const text = doc('settings.md');
  const start = text.indexOf('## Create a key and call Building Link (a first run)');
  return text.slice(start, text.indexOf('\n## ', start + 10));
}

/** The Building Link command of docs/integrators.md's examples, as a reader would paste it. */
function integratorsBuildingLinkCommand(): string {
  const text = doc('integrators.md');
  const examples = text.slice(text.indexOf('## Examples'));
  const block = examples.slice(
    examples.indexOf('```sh\n') + 6,
    examples.indexOf('\n```', examples.indexOf('```sh')),
  );
  const line = block.split('\n').find((l) => l.includes('/api/v1/building-links/'));
  if (!line) throw new Error('docs/integrators.md shows no Building Link call');
  return line;
}

suite(
  `a newcomer's first key, in Chromium against the demo data${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    let t: TestApp;
    let demo: DemoCredentials;
    let chromium: Chromium;
    let context: BrowserContext;
    let page: Page;
    let watch: PageWatch;

    beforeAll(async () => {
      t = await startOAuthTestApp();
      demo = await seedDemo(t.app);
      chromium = await launchChromium();
      context = await chromium.newContext({ viewport: DESKTOP });
      watch = await watchedPage(context, t.url);
      page = watch.page;
    }, 180_000);
    afterAll(async () => {
      await context?.close();
      await chromium?.close();
      await t?.close();
    });

    it('the docs say the steps in this order', () => {
      const section = firstRun();
      const at = (needle: string) => {
        const i = section.indexOf(needle);
        expect([needle, i >= 0]).toEqual([needle, true]);
        return i;
      };
      const order = [
        at('/login'),
        at('`pro@demo.example.com`'),
        at('**Create key**'),
        at('building-links/1'),
        at('**Usage**'),
        at('teamUsage('),
      ];
      expect(order).toEqual([...order].sort((a, b) => a - b));
      expect(section).toContain('integrators.md#examples');
      // The command the first run shows is the integrators' command.
      expect(section).toContain(integratorsBuildingLinkCommand().trim());
    });

    it('signs in, creates a key, calls Building Link as documented, and sees the call on the Usage page and in GraphQL', async () => {
      const password = /every demo password is `([^`]+)`/.exec(firstRun())?.[1];
      expect(password).toBe(demo.password);
      const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
      expect(readme).toContain(`password: ${password}`);

      // 1. Sign in at /login, then the team settings.
      await page.goto(`${t.url}/login`);
      await page.getByLabel('Email').fill('pro@demo.example.com');
      await page.getByLabel('Password').fill(password!);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForLoadState();
      await page.getByRole('link', { name: 'Team settings' }).click();
      await page.waitForLoadState();
      expect(new URL(page.url()).pathname).toBe('/settings');
      await expect(page.getByText('Demo Pro').first().isVisible()).resolves.toBe(true);

      // 2. Create a key with the Building Link scope.
      await page
        .getByRole('navigation', { name: 'Team settings' })
        .getByRole('link', { name: 'API keys' })
        .click();
      await page.waitForLoadState();
      await page.getByLabel('Name').fill('first key');
      await page.getByRole('checkbox', { name: /building-links/ }).check();
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.waitForLoadState();
      const secret = (await page.locator('#new-secret').textContent())!.trim();
      expect(secret).toMatch(/^pds_key_/);

      // 3. Call Building Link exactly as docs/integrators.md shows, with the key in $KEY.
      const command = integratorsBuildingLinkCommand().replaceAll('http://127.0.0.1:3000', t.url);
      const { stdout } = await run('bash', ['-eo', 'pipefail', '-c', command], {
        env: { ...process.env, KEY: secret },
      });
      expect(stdout.split('\r\n')[0]).toMatch(/^HTTP\/1\.1 200/);
      const answer = JSON.parse(stdout.slice(stdout.indexOf('\r\n\r\n') + 4));
      expect(answer.building.id).toBe(1);

      // 4. The Usage page shows the call within a minute: the counts are written in the background.
      await page
        .getByRole('navigation', { name: 'Team settings' })
        .getByRole('link', { name: 'Usage' })
        .click();
      await page.waitForLoadState();
      const started = Date.now();
      const today = () =>
        page
          .getByRole('row', { name: /first key/ })
          .first()
          .locator('td[data-label="Today"]');
      while ((await today().count()) === 0 || (await today().textContent())?.trim() !== '1') {
        expect(Date.now() - started).toBeLessThan(60_000);
        await new Promise((r) => setTimeout(r, 1000));
        await page.reload();
      }
      const remaining = (
        await page
          .getByRole('row', { name: /first key building-links/ })
          .locator('td[data-label="Remaining"]')
          .textContent()
      )?.trim();
      expect(remaining).toBe('119');

      // 5. GraphQL, with the same session, agrees with the page.
      const res = await page.request.post(`${t.url}/graphql`, {
        data: {
          query: `{ viewer { team { id } } }`,
        },
        headers: { 'content-type': 'application/json' },
      });
      const teamId = (await res.json()).data.viewer.team.id;
      const usage = await page.request.post(`${t.url}/graphql`, {
        data: {
          query: `query($t: Int!) { teamUsage(teamId: $t) { credentials { name daily } windows { scope remaining } } }`,
          variables: { t: teamId },
        },
        headers: { 'content-type': 'application/json' },
      });
      const { teamUsage } = (await usage.json()).data;
      const mine = teamUsage.credentials.find((c: any) => c.name === 'first key');
      expect(mine.daily.at(-1)).toBe(1);
      expect(teamUsage.windows).toContainEqual({ scope: 'building-links', remaining: Number(remaining) });
      expectStrictPolicy(watch);
    }, 120_000);
  },
);
