import { accessSync, constants, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium, installed by `.ci/run` (`apt-get install chromium`). */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Why the real-browser tests cannot run here, or null when they can. Under CI a missing Chromium
 * is a broken machine, not a reason to skip: the caller fails instead.
 */
export function chromiumMissing(): string | null {
  try {
    accessSync(CHROMIUM_PATH, constants.X_OK);
    return null;
  } catch {
    return `${CHROMIUM_PATH} is not installed (apt-get install chromium; .ci/run installs it)`;
  }
}

export function runningInCi(): boolean {
  const ci = process.env.CI;
  return ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false';
}

/**
 * Headless Chromium in a fresh profile (Playwright launches it with a new temporary
 * `--user-data-dir` and deletes it on close). The machine has no network: everything that would
 * phone home at start is off, and QUIC is off so nothing waits on UDP.
 * `trustSpki` names certificate keys to accept as if a CA had signed them (the test's TLS terminator).
 */
export function launchChromium(opts: { trustSpki?: string[] } = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      ...(opts.trustSpki?.length
        ? [`--ignore-certificate-errors-spki-list=${opts.trustSpki.join(',')}`]
        : []),
    ],
  });
}

/** A service page the browser navigated to, with its status and policy. */
export interface LoadedDocument {
  path: string;
  status: number;
  csp: string | undefined;
}

/** What a watched page saw: policy violations and script errors, and every page of `origin` it loaded. */
export interface PageWatch {
  page: Page;
  violations: string[];
  documents: LoadedDocument[];
}

/** A new page in `context` that reports Content-Security-Policy violations and records its navigations. */
export async function watchedPage(context: BrowserContext, origin: string): Promise<PageWatch> {
  await context.addInitScript(
    "document.addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI));",
  );
  const page = await context.newPage();
  const watch: PageWatch = { page, violations: [], documents: [] };
  page.on('console', (message) => {
    if (/CSP violation|Content Security Policy/.test(message.text())) watch.violations.push(message.text());
  });
  page.on('pageerror', (err) => watch.violations.push(err.message));
  page.on('response', (res) => {
    const url = new URL(res.url());
    if (res.request().isNavigationRequest() && url.origin === origin) {
      watch.documents.push({
        path: url.pathname,
        status: res.status(),
        csp: res.headers()['content-security-policy'],
      });
    }
  });
  return watch;
}

/** Every page loaded carried the strict policy (no inline script), and nothing broke it. */
export function expectStrictPolicy(watch: Pick<PageWatch, 'violations' | 'documents'>): void {
  const pages = watch.documents.filter((d) => d.status < 300 || d.status >= 400);
  expect(pages.length).toBeGreaterThan(0);
  for (const doc of pages) {
    expect(doc.csp).toMatch(/^default-src 'none';/);
    expect(doc.csp).toMatch(/frame-ancestors 'none'/);
    expect(doc.csp).not.toMatch(/script-src[^;]*'unsafe-/);
  }
  expect(watch.violations).toEqual([]);
}

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 800 };

/** Full-page pictures at phone and desktop widths: `<dir>/<name>-phone.png` and `-desktop.png`. */
export async function screenshotWidths(page: Page, dir: string, name: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  for (const [width, viewport] of [
    ['phone', PHONE],
    ['desktop', DESKTOP],
  ] as const) {
    await page.setViewportSize(viewport);
    await page.screenshot({ path: join(dir, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize(DESKTOP);
}
