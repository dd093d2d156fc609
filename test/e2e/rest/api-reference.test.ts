import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../../support/app.js';
import { chromiumMissing, launchChromium, runningInCi } from '../../support/chromium.js';

const missing = chromiumMissing();

if (missing && runningInCi()) {
  // .ci/run installs Chromium, so under CI its absence is a broken machine, not a reason to skip.
  it('has Chromium under CI', () => {
    throw new Error(`CI is set but ${missing}`);
  });
}

describe('the interactive API reference over HTTP', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('serves the page with a strict Content-Security-Policy and its script from this origin', async () => {
    const page = await t.request('GET', '/api/v1/docs/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/=]+'/);
    expect(csp).not.toMatch(/unsafe-eval|https?:/);
    expect(csp).toMatch(/connect-src 'self'/);
    expect(page.text).not.toMatch(/cdn\.jsdelivr|fonts\.scalar|unpkg/);
    const src = /<script[^>]+src="([^"]+)"/.exec(page.text)?.[1];
    expect(src).toBeDefined();
    const script = await t.request('GET', new URL(src!, `${t.url}/api/v1/docs/`).pathname);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    expect(script.text.length).toBeGreaterThan(100_000);
  });
});

// Skipped only where Chromium is not installed; the reason is in the suite's title and printed.
const suite = missing ? describe.skip : describe;
if (missing) process.stderr.write(`test/e2e/rest/api-reference.test.ts: browser test skipped: ${missing}\n`);

suite(`the interactive API reference in Chromium${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let t: TestApp | undefined;
  let chromium: Browser | undefined;

  beforeAll(async () => {
    t = await startTestApp();
    chromium = await launchChromium();
  });
  afterAll(async () => {
    await chromium?.close();
    await t?.close();
  });

  it('renders both Fusion operations from the served OpenAPI document, with no CSP violation or outside request', async () => {
    const context = await chromium!.newContext();
    const page = await context.newPage();
    const violations: string[] = [];
    const outside: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
    });
    page.on('request', (r) => {
      if (!r.url().startsWith(t!.url) && !r.url().startsWith('data:')) outside.push(r.url());
    });
    const response = await page.goto(`${t!.url}/api/v1/docs`);
    expect(response?.status()).toBe(200);
    await page.getByText('Building Link', { exact: false }).first().waitFor({ timeout: 30_000 });
    const text = await page.locator('body').innerText();
    expect(text).toMatch(/building-links/);
    expect(text).toMatch(/floorplan-match/);
    expect(text).toMatch(/Floor Plan Match/);
    expect(violations).toEqual([]);
    expect(outside).toEqual([]);
    await context.close();
  }, 90_000);
});
