import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { startTestApp, type TestApp } from '../../support/app.js';
import { freePort } from '../../support/net.js';
import { chromiumMissing, launchChromium, runningInCi } from '../../support/chromium.js';
import {
  addMember,
  createAccessToken,
  createProject,
  createTeam,
  createUser,
} from '../../support/factories.js';
import { makePdf, UPLOAD } from '../../support/pdf.js';

const missing = chromiumMissing();

if (missing && runningInCi()) {
  it('has Chromium under CI', () => {
    throw new Error(`CI is set but ${missing}`);
  });
}

// Skipped only where Chromium is not installed; the reason is in the suite's title and printed.
const suite = missing ? describe.skip : describe;
if (missing) process.stderr.write(`test/e2e/ai-clients/citation-browser.test.ts: skipped: ${missing}\n`);

suite(`a citation url opened in Chromium${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let t: TestApp;
  let chromium: Browser;
  let url: string;
  const PASSWORD = 'correct horse battery';

  beforeAll(async () => {
    const port = await freePort();
    // Served at its public base URL, so the sign-in form's same-site check and the links agree.
    t = await startTestApp({ PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` });
    chromium = await launchChromium();
    const pro = await createTeam(t, { plan: 'pro' });
    const reader = await createUser(t, PASSWORD, 'reader@example.com');
    await addMember(t, pro.id, reader.id);
    const essential = await createTeam(t, { plan: 'essential' });
    const outsider = await createUser(t, PASSWORD, 'outsider@example.com');
    await addMember(t, essential.id, outsider.id);
    const projectId = (await createProject(t, { name: 'Harbour Lights' })).id;
    const pdf = await makePdf(['Kitchen: 30" gas range.', 'Second page: quartz counter-tops.']);
    await t.gql(
      UPLOAD,
      {
        input: {
          projectId,
          category: 'features-finishes',
          name: 'features.pdf',
          contentBase64: pdf.toString('base64'),
        },
      },
      t.operator,
    );
    await t.app.deps.ingestion.queue.idle();
    const token = (await createAccessToken(t, pro.id, reader.id)).secret;
    const res = await t.request('POST', '/mcp', {
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'search', arguments: { query: 'quartz countertops' } },
      }),
    });
    url = res.json.result.structuredContent.results[0].url;
    expect(url.startsWith(`${t.url}/documents/`)).toBe(true);
  });
  afterAll(async () => {
    await chromium?.close();
    await t?.close();
  });

  let context: BrowserContext;
  let page: Page;
  beforeEach(async () => {
    context = await chromium.newContext({ acceptDownloads: true });
    page = await context.newPage();
  });
  afterEach(async () => {
    await context.close();
  });

  /** Navigates and answers the document's response (a PDF may be shown by the viewer or downloaded). */
  async function open(target: string): Promise<Response> {
    const answered = page.waitForResponse((r) => r.url().split('#')[0] === target.split('#')[0]);
    await page.goto(target).catch((err: Error) => {
      if (!/Download is starting|net::ERR_ABORTED/.test(err.message)) throw err;
    });
    return answered;
  }

  async function signIn(email: string) {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForLoadState();
  }

  it('sends a visitor to sign in, then opens the PDF at its page for a member of a Pro team', async () => {
    expect(url).toMatch(/\/documents\/\d+\/pdf\?team=\d+#page=2$/);
    await page.goto(url);
    expect(new URL(page.url()).pathname).toBe('/login');
    const pdfAfterSignIn = page.waitForResponse((r) => r.url().includes('/pdf?team='));
    await signIn('reader@example.com').catch(() => undefined);
    const signedIn = await pdfAfterSignIn;
    expect(signedIn.status()).toBe(200);
    expect(signedIn.headers()['content-type']).toBe('application/pdf');
    expect(signedIn.headers()['content-disposition']).toMatch(/^inline;/);
    // The page shows Chromium's PDF viewer; the bytes it was given, with the same session:
    const bytes = await context.request.get(url);
    expect((await bytes.body()).subarray(0, 5).toString()).toBe('%PDF-');
    // Signed in, the citation opens straight at its page in a new tab.
    page = await context.newPage();
    const res = await open(url);
    expect(res.status()).toBe(200);
    expect(page.url()).toBe(url);
    expect(new URL(page.url()).hash).toBe('#page=2');
  });

  it('refuses a signed-in member of a team whose plan may not see documents', async () => {
    await page.goto(`${t.url}/login`);
    await signIn('outsider@example.com');
    const res = await open(url.replace(/\?team=\d+/, ''));
    expect(res.status()).toBe(403);
    const withTeam = await open(url);
    // The link names the reader's team, which is not the outsider's.
    expect(withTeam.status()).toBe(403);
    expect(await withTeam.text()).toMatch(/not a member of team/);
  });
});
