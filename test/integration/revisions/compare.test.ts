import { createRng, type Rng } from '../../../src/demo/prng.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import {
  addMember,
  createAccessToken,
  createProject,
  createTeam,
  createUser,
} from '../../support/factories.js';
import { makePdf, UPLOAD } from '../../support/pdf.js';

/**
 * Revision pairs generated with known differences: a price list whose revision re-prices some
 * suites, drops some and adds others, and a deposit structure whose percentages change. The
 * comparison must report exactly those differences, no more.
 */

let t: TestApp;
const tokens: Record<string, string> = {};
let project: number;

const EXPOSURES = ['N', 'E', 'S', 'W', 'NE', 'SW'];
const money = (n: number) => `$${n.toLocaleString('en-US')}`;

interface Suite {
  label: string;
  beds: number;
  sqft: number;
  exposure: string;
  price: number;
}
const row = (s: Suite) => `Suite ${s.label} ${s.beds} bed ${s.sqft} sq ft ${s.exposure} ${money(s.price)}`;

function suites(rng: Rng, count: number): Suite[] {
  return Array.from({ length: count }, (_, i) => ({
    label: `${Math.floor(i / 4) + 2}${'ABCD'[i % 4]}`,
    beds: rng.int(1, 3),
    sqft: rng.int(45, 140) * 10,
    exposure: rng.pick(EXPOSURES),
    price: rng.int(500, 1900) * 1000 + 900,
  }));
}

/** Pages of rows, 20 rows a page, under a title. */
const pagesOf = (title: string, rows: string[]) =>
  Array.from({ length: Math.ceil(rows.length / 20) }, (_, p) =>
    [`${title} page ${p + 1}`, ...rows.slice(p * 20, p * 20 + 20)].join('\n'),
  );

async function upload(name: string, pages: string[], supersedes?: number): Promise<number> {
  const res = await t.gql(
    UPLOAD,
    {
      input: {
        projectId: project,
        name,
        category: 'price-list',
        contentBase64: (await makePdf(pages)).toString('base64'),
        supersedesDocumentId: supersedes,
      },
    },
    t.operator,
  );
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data.uploadDocument.document.id;
}

const COMPARE = `query($d: Int!, $o: Int, $c: String, $l: Int) {
  compareDocumentRevisions(documentId: $d, otherDocumentId: $o, cursor: $c, limit: $l) {
    data { kind pageNumber before { documentId pageNumber textHash text } after { documentId pageNumber textHash text } numbers { before after } }
    meta { projectId beforeDocumentId afterDocumentId pagesCompared pagesChanged totalChanges returned nextCursor }
  } }`;

async function allChanges(d: number, o?: number, limit = 7) {
  const seen: any[] = [];
  let cursor: string | null = null;
  let calls = 0;
  do {
    const res: any = await t.gql(COMPARE, { d, o, c: cursor, l: limit }, tokens.elite);
    expect(res.errors).toBeUndefined();
    const page = res.data.compareDocumentRevisions;
    expect(page.meta.returned).toBe(page.data.length);
    seen.push(...page.data);
    cursor = page.meta.nextCursor;
    expect(++calls).toBeLessThan(100);
  } while (cursor);
  return seen;
}

// The generated pair and what differs in it.
const rng = createRng(20261128);
const before = suites(rng, 36);
const after = before.map((s) => ({ ...s }));
const repriced = [1, 5, 9, 22, 30];
for (const i of repriced) after[i].price += rng.int(1, 40) * 1000;
const dropped = new Set([13, 27]);
const added: Suite[] = [
  { label: 'PH1', beds: 3, sqft: 1650, exposure: 'SW', price: 2_249_900 },
  { label: 'PH2', beds: 3, sqft: 1720, exposure: 'NE', price: 2_399_900 },
];
const afterRows = [...after.filter((_, i) => !dropped.has(i)).map(row), ...added.map(row)];
const beforeRows = before.map(row);
let v1: number;
let v2: number;
let d1: number;
let d2: number;
let d3: number;
let other: number;

beforeAll(async () => {
  t = await startTestApp();
  for (const plan of ['pro', 'elite']) {
    const team = await createTeam(t, { plan });
    const user = await createUser(t);
    await addMember(t, team.id, user.id);
    tokens[plan] = (await createAccessToken(t, team.id, user.id)).secret;
  }
  project = (await createProject(t, { name: 'Revision Towers' })).id;
  v1 = await upload('prices-v1.pdf', pagesOf('Price list', beforeRows));
  v2 = await upload('prices-v2.pdf', pagesOf('Price list', afterRows), v1);
  const deposit = (first: string, second: string) => [
    [
      'Deposit structure',
      `${first} on signing`,
      `${second} in 30 days`,
      '5% in 180 days',
      '5% on occupancy',
    ].join('\n'),
  ];
  d1 = await upload('deposit-v1.pdf', deposit('$10,000', '5%'));
  d2 = await upload('deposit-v2.pdf', deposit('$10,000', '10%'), d1);
  d3 = await upload('deposit-v3.pdf', deposit('$20,000', '10%'), d2);
  other = await upload('unrelated.pdf', ['Incentives: free assignment']);
  await t.app.deps.ingestion.queue.idle();
});
afterAll(async () => {
  await t.close();
});

describe('compare-document-revisions on generated revision pairs', () => {
  it('finds every re-priced suite as a number change, every dropped and added row, and nothing else', async () => {
    const changes = await allChanges(v2);
    const changed = changes.filter((c) => c.kind === 'changed');
    expect(changed.map((c) => c.before.text).sort()).toEqual(repriced.map((i) => row(before[i])).sort());
    for (const c of changed) {
      const i = before.findIndex((s) => row(s) === c.before.text);
      expect(c.after.text).toBe(row(after[i]));
      expect(c.numbers).toEqual([{ before: money(before[i].price), after: money(after[i].price) }]);
    }
    // Rows move between pages when rows are dropped: a row that changed page is removed from one
    // page and added on the other, so compare what was removed and added as sets of lines.
    const removed = changes.filter((c) => c.kind === 'removed').map((c) => c.before.text);
    const addedLines = changes.filter((c) => c.kind === 'added').map((c) => c.after.text);
    const net = (a: string[], b: string[]) => a.filter((x) => !b.includes(x)).sort();
    expect(net(removed, addedLines)).toEqual([...dropped].map((i) => row(before[i])).sort());
    expect(net(addedLines, removed)).toEqual(added.map(row).sort());
  });

  it('cites both sides with document, page and the page hash stable citations use', async () => {
    const [first] = (await allChanges(v2)).filter((c) => c.kind === 'changed');
    expect(first.before).toMatchObject({ documentId: v1, pageNumber: first.pageNumber });
    expect(first.after).toMatchObject({ documentId: v2, pageNumber: first.pageNumber });
    expect(first.before.textHash).toMatch(/^[0-9a-f]{64}$/);
    const search: any = await t.gql(
      `query($q: String!, $p: Int) { searchDocumentText(query: $q, projectId: $p, includeHistorical: true, limit: 25) {
        data { documentId pageNumber stableCitation { textHash } } } }`,
      { q: first.before.text.split(' ').slice(0, 2).join(' '), p: project },
      tokens.elite,
    );
    const hit = search.data.searchDocumentText.data.find(
      (h: any) => h.documentId === v1 && h.pageNumber === first.pageNumber,
    );
    expect(hit.stableCitation.textHash).toBe(first.before.textHash);
  });

  it('pairs percentages and amounts across a chain, in either order and across revisions', async () => {
    const step = await allChanges(d2);
    expect(step).toEqual([
      expect.objectContaining({ kind: 'changed', numbers: [{ before: '5%', after: '10%' }] }),
    ]);
    expect(step[0].before.text).toBe('5% in 30 days');
    const across = await allChanges(d1, d3);
    expect(across.map((c) => c.numbers)).toEqual([
      [{ before: '$10,000', after: '$20,000' }],
      [{ before: '5%', after: '10%' }],
    ]);
    const reversed: any = await t.gql(COMPARE, { d: d3, o: d1 }, tokens.elite);
    expect(reversed.data.compareDocumentRevisions.meta).toMatchObject({
      beforeDocumentId: d1,
      afterDocumentId: d3,
    });
  });

  it('pages with a cursor visit every change exactly once', async () => {
    const whole: any = await t.gql(COMPARE, { d: v2, l: 25 }, tokens.elite);
    const total = whole.data.compareDocumentRevisions.meta.totalChanges;
    const paged = await allChanges(v2, undefined, 3);
    expect(paged).toHaveLength(total);
    expect(new Set(paged.map((c) => JSON.stringify(c))).size).toBe(total);
  });

  it('refuses a cursor of another comparison, a forged one, and documents of two chains', async () => {
    const first: any = await t.gql(COMPARE, { d: v2, l: 1 }, tokens.elite);
    const cursor = first.data.compareDocumentRevisions.meta.nextCursor;
    const foreign: any = await t.gql(COMPARE, { d: d2, c: cursor }, tokens.elite);
    expect(foreign.errors[0].message).toMatch(/cursor: belongs to a comparison of other documents/);
    const forged: any = await t.gql(COMPARE, { d: v2, c: 'bm90LWEtY3Vyc29y' }, tokens.elite);
    expect(forged.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const unrelated: any = await t.gql(COMPARE, { d: v2, o: other }, tokens.elite);
    expect(unrelated.errors[0].message).toMatch(/not revisions of one document/);
    const alone: any = await t.gql(COMPARE, { d: other }, tokens.elite);
    expect(alone.errors[0].message).toMatch(/replaces no older revision/);
    const missing: any = await t.gql(COMPARE, { d: 2_000_000_000 }, tokens.elite);
    expect(missing.errors[0].extensions.code).toBe('NOT_FOUND');
    const tooMany: any = await t.gql(COMPARE, { d: v2, l: 26 }, tokens.elite);
    expect(tooMany.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('is Elite only: Pro gets the plan error', async () => {
    const res: any = await t.gql(COMPARE, { d: v2 }, tokens.pro);
    expect(res.errors[0].extensions.appCode).toBe('PLAN_UPGRADE_REQUIRED');
    expect(res.errors[0].message).toMatch(/requires an Elite plan/);
  });

  it('is an MCP tool with the same answer, and a plan error a model can read', async () => {
    const call = (token: string) =>
      t.request('POST', '/mcp', {
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'compare-document-revisions', arguments: { document_id: d2 } },
        }),
      });
    const res = await call(tokens.elite);
    const body = res.json.result.structuredContent;
    expect(body.data).toEqual([
      expect.objectContaining({
        kind: 'changed',
        page_number: 1,
        numbers: [{ before: '5%', after: '10%' }],
        before: expect.objectContaining({ document_id: d1, text: '5% in 30 days' }),
      }),
    ]);
    expect(body.meta).toMatchObject({ before_document_id: d1, after_document_id: d2, next_cursor: null });
    const pro = await call(tokens.pro);
    expect(pro.json.result.isError).toBe(true);
    expect(pro.json.result.content[0].text).toMatch(/Elite plan/);
  });
});
