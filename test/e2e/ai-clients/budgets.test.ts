import { startTestApp, type TestApp } from '../../support/app.js';
import { createProject, memberToken } from '../../support/factories.js';
import { DOCUMENT_LIBRARY_PAGE, REVISION_CHANGES_LIMIT } from '../../../src/limits.js';
import { MAX_LINE_CHARS } from '../../../src/revisions/revisions.service.js';
import { makePdf, UPLOAD } from '../../support/pdf.js';

/**
 * Every tool's largest possible answer stays within what AI clients accept from one tool result
 * (Claude clients refuse results over 25,000 tokens): under 100,000 bytes of JSON-RPC message,
 * about 25,000 tokens at four bytes a token. Each tool is called with its largest page over items
 * whose text fields are at their longest (in two-byte UTF-8 letters, as accented names are), and
 * the bound is the answer measured plus, for each item the fixture has fewer than the tool's page,
 * the largest item of that answer again.
 */
const BUDGET_BYTES = 100_000;

let t: TestApp;
let token: string;
let eliteToken: string;
let revisedId: number;
let projectId: number;
/** A text of `n` characters, two UTF-8 bytes each, unique by `tag`. */
const long = (n: number, tag = '') => (tag + 'é'.repeat(n)).slice(0, n);

async function call(
  name: string,
  args: Record<string, unknown>,
  bearer = token,
): Promise<{ bytes: number; result: any }> {
  const res = await t.request('POST', '/mcp', {
    headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  expect(res.json.result.isError).toBeFalsy();
  return { bytes: Buffer.byteLength(res.text), result: res.json.result.structuredContent };
}

/**
 * The answer's bytes plus its largest item once for each item short of `page`. An item is written
 * twice on the wire: as structured content, and inside the text content as an escaped string.
 */
function itemBytes(item: unknown): number {
  const json = JSON.stringify(item);
  return Buffer.byteLength(json) + Buffer.byteLength(JSON.stringify(json)) - 2 + 2;
}

function bound(answer: { bytes: number; result: any }, items: unknown[], page: number): number {
  const largest = Math.max(...items.map(itemBytes));
  return answer.bytes + Math.max(0, page - items.length) * largest;
}

const sizes: Record<string, number> = {};
const resourceSizes: Record<string, number> = {};

beforeAll(async () => {
  t = await startTestApp();
  token = (await memberToken(t, 'pro')).secret;
  eliteToken = (await memberToken(t, 'elite')).secret;
  for (let i = 0; i < 3; i++) {
    const project = await createProject(t, {
      name: long(200, `${i} `),
      city: 'Budgetville',
      developerName: long(200, `${i} `),
      address: long(300),
      province: long(60),
      occupancyDate: '2030-12',
    });
    projectId ??= project.id;
  }
  // Eleven pages of long lines mentioning the term: chunks at their longest, more hits than a page,
  // more text than one resources/read answers.
  const line = `${long(60)} quartz ${long(60)}`;
  // The same pages as a deposit structure too (distinct bytes), for the prompt that embeds one.
  for (const category of ['features-finishes', 'deposit-structure']) {
    const pdf = await makePdf(
      Array.from({ length: 11 }, (_, i) =>
        [
          i === 0 && category === 'deposit-structure' ? category : line,
          ...Array.from({ length: 23 }, () => line),
        ].join('\n'),
      ),
    );
    const res = await t.gql(
      UPLOAD,
      {
        input: {
          projectId,
          category,
          name: long(300, category),
          contentBase64: pdf.toString('base64'),
        },
      },
      t.operator,
    );
    if (res.errors) throw new Error(JSON.stringify(res.errors));
  }
  // A price list and its revision: every row keeps its label and changes five of its six numbers,
  // 60 rows over three pages, so the comparison has more changes than its largest page.
  const rows = (revised: boolean) =>
    Array.from(
      { length: 60 },
      (_, i) =>
        `Suite ${i} ${[1, 2, 3, 4, 5].map((n) => (revised ? 100 + n * 7 + i : n + i)).join(' ')} ${i}`,
    );
  const pages = (revised: boolean) =>
    [0, 1, 2].map((p) =>
      rows(revised)
        .slice(p * 20, p * 20 + 20)
        .join('\n'),
    );
  const uploadRevision = async (revised: boolean, supersedes?: number) => {
    const res = await t.gql(
      UPLOAD,
      {
        input: {
          projectId,
          category: 'price-list',
          name: 'Price list',
          contentBase64: (await makePdf(pages(revised))).toString('base64'),
          supersedesDocumentId: supersedes,
        },
      },
      t.operator,
    );
    if (res.errors) throw new Error(JSON.stringify(res.errors));
    return res.data.uploadDocument.document.id as number;
  };
  await t.app.deps.ingestion.queue.idle();
  revisedId = await uploadRevision(true, await uploadRevision(false));
  await t.app.deps.ingestion.queue.idle();
  // Extracting ten long pages takes a while on a busy machine.
}, 300_000);
afterAll(async () => {
  // Printed for docs/ai-clients.md.
  process.stderr.write(`largest answers (bytes): ${JSON.stringify({ ...sizes, ...resourceSizes })}\n`);
  await t.close();
});

describe('every tool answer fits a client budget', () => {
  it('search-document-text, search, fetch-document-context and fetch at their largest', async () => {
    const hits = await call('search-document-text', { query: 'quartz', limit: 25 });
    expect(hits.result.data).toHaveLength(25);
    sizes['search-document-text'] = hits.bytes;
    const results = await call('search', { query: 'quartz' });
    expect(results.result.results).toHaveLength(25);
    sizes.search = results.bytes;
    const center = hits.result.data[12].chunk_id;
    const around = await call('fetch-document-context', { chunk_id: center, before: 5, after: 5 });
    expect(around.result.data).toHaveLength(11);
    expect(Math.max(...around.result.data.map((c: any) => c.text.length))).toBeGreaterThan(900);
    sizes['fetch-document-context'] = around.bytes;
    const read = await call('fetch', { id: String(center) });
    sizes.fetch = read.bytes;
    for (const size of Object.values(sizes)) expect(size).toBeLessThan(BUDGET_BYTES);
  });

  it('find-projects-mentioning and list-project-documents at their largest page', async () => {
    const found = await call('find-projects-mentioning', { query: 'quartz', limit: 50 });
    sizes['find-projects-mentioning'] = Math.round(bound(found, found.result.data, 50));
    const docs = await call('list-project-documents', { project_id: projectId });
    sizes['list-project-documents'] = Math.round(bound(docs, docs.result.data, 40));
    expect(sizes['find-projects-mentioning']).toBeLessThan(BUDGET_BYTES);
    expect(sizes['list-project-documents']).toBeLessThan(BUDGET_BYTES);
  });

  it('compare-document-revisions at its largest page, each quoted line at its longest', async () => {
    const compared = await call(
      'compare-document-revisions',
      { document_id: revisedId, limit: REVISION_CHANGES_LIMIT.max },
      eliteToken,
    );
    const changes = compared.result.data as any[];
    expect(changes).toHaveLength(REVISION_CHANGES_LIMIT.max);
    expect(compared.result.meta.total_changes).toBe(60);
    expect(changes.every((c) => c.kind === 'changed' && c.numbers.length === 5)).toBe(true);
    // Each change again with both quoted lines at the 300 characters a quote is cut to.
    const longest = (c: any) => ({
      ...c,
      before: { ...c.before, text: long(MAX_LINE_CHARS) },
      after: { ...c.after, text: long(MAX_LINE_CHARS) },
    });
    sizes['compare-document-revisions'] =
      compared.bytes + changes.reduce((sum, c) => sum + itemBytes(longest(c)) - itemBytes(c), 0);
    expect(sizes['compare-document-revisions']).toBeLessThan(BUDGET_BYTES);
  });

  it('list-projects at its largest page', async () => {
    const projects = await call('list-projects', { city: 'Budgetville', per_page: 25 });
    sizes['list-projects'] = Math.round(bound(projects, projects.result.data, 25));
    expect(sizes['list-projects']).toBeLessThan(BUDGET_BYTES);
  });

  it('resources/list, resources/read and prompts/get at their largest', async () => {
    const rpc = async (method: string, params: Record<string, unknown>) => {
      const res = await t.request('POST', '/mcp', {
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      expect(res.json.error).toBeUndefined();
      return { bytes: Buffer.byteLength(res.text), result: res.json.result };
    };
    // resources/list: its page of 40, each document as long as the one listed (300-character names
    // in two-byte letters, of a project with a 200-character name).
    const listed = await rpc('resources/list', {});
    const longest = listed.result.resources.reduce((a: any, b: any) =>
      Buffer.byteLength(JSON.stringify(a)) >= Buffer.byteLength(JSON.stringify(b)) ? a : b,
    );
    expect(longest.name).toHaveLength(300);
    const item = Buffer.byteLength(JSON.stringify(longest)) + 1;
    resourceSizes['resources/list'] =
      listed.bytes + Math.max(0, DOCUMENT_LIBRARY_PAGE - listed.result.resources.length) * item;
    // resources/read: eleven pages of about 3,000 two-byte letters: cut by the budget.
    const read = await rpc('resources/read', { uri: longest.uri });
    expect(read.result._meta.next_page).not.toBeNull();
    resourceSizes['resources/read'] = read.bytes;
    // The deposit prompt embeds that document's text.
    const prompt = await rpc('prompts/get', {
      name: 'summarize-deposit-structure',
      arguments: { project_id: String(projectId) },
    });
    expect(prompt.result.messages[0].content.type).toBe('resource');
    resourceSizes['prompts/get summarize-deposit-structure'] = prompt.bytes;
    for (const size of Object.values(resourceSizes)) expect(size).toBeLessThan(BUDGET_BYTES);
  });

  // Runs last: the tests above fill `sizes`. A tool added later without a measurement fails here.
  it('has measured every tool the server lists', async () => {
    const res = await t.request('POST', '/mcp', {
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
    });
    const listed = (res.json.result.tools as { name: string }[]).map((tool) => tool.name).sort();
    expect(listed.length).toBeGreaterThanOrEqual(8);
    expect(Object.keys(sizes).sort()).toEqual(listed);
  });
});
