import { startTestApp, type TestApp } from '../../support/app.js';
import {
  addMember,
  createAccessToken,
  createProject,
  createTeam,
  createUser,
} from '../../support/factories.js';
import { makePdf, UPLOAD } from '../../support/pdf.js';
import { lexemesOf, searchQueryLiteral } from '../../../src/search/text/lexemes.js';
import { forgetLexemeFrequencies, projectPath } from '../../../src/search/query/statements.js';
import { forgetSearchAnswers } from '../../../src/search/query/search-cache.js';
import { expandQuery } from '../../../src/search/query/synonyms.js';

let t: TestApp;
const tokens: Record<string, string> = {};
let harbour: number;
let lakeside: number;
let empty: number;
const docs: Record<string, number> = {};

async function upload(
  projectId: number,
  name: string,
  category: string,
  pages: string[],
  supersedes?: number,
) {
  const res = await t.gql(
    UPLOAD,
    {
      input: {
        projectId,
        name,
        category,
        contentBase64: (await makePdf(pages)).toString('base64'),
        supersedesDocumentId: supersedes,
      },
    },
    t.operator,
  );
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  docs[name] = res.data.uploadDocument.document.id;
  return docs[name];
}

const long = (n: number) =>
  Array.from(
    { length: n },
    (_, i) => `Paragraph ${i} about the lobby, amenities and the concierge desk.`,
  ).join('\n');

beforeAll(async () => {
  t = await startTestApp();
  for (const plan of ['sandbox', 'essential', 'pro', 'elite']) {
    const team = await createTeam(t, { plan });
    const user = await createUser(t);
    await addMember(t, team.id, user.id);
    tokens[plan] = (await createAccessToken(t, team.id, user.id)).secret;
  }
  harbour = (await createProject(t, { name: 'Harbour Lights' })).id;
  lakeside = (await createProject(t, { name: 'Lakeside Towns' })).id;
  empty = (await createProject(t, { name: 'No Documents Yet' })).id;
  await upload(harbour, 'harbour-features.pdf', 'features-finishes', [
    'Kitchen: 30" gas range by Bosch, quartz counter-tops and a 130 inch island.',
    'Ensuite: frameless glass shower; pinch pleat drapery in the den.',
  ]);
  await upload(harbour, 'harbour-brochure.pdf', 'brochure', [
    'Chef kitchens with 30-inch gas ranges and quartz countertops.',
  ]);
  await upload(lakeside, 'lakeside-features.pdf', 'features-finishes', [
    'Every town features a 30â€³ gas range and quartz counter tops.',
  ]);
  await upload(lakeside, 'lakeside-fact-sheet.pdf', 'fact-sheet', [
    'Fact sheet: 30\uFFFD gas range, EV charging.',
  ]);
  const v1 = await upload(harbour, 'harbour-prices-v1.pdf', 'price-list', [
    'Price list: assignment fee $5,000 (old terms)',
  ]);
  await upload(harbour, 'harbour-prices-v2.pdf', 'price-list', ['Price list: free assignment'], v1);
  await upload(harbour, 'harbour-long.pdf', 'brochure', [long(60)]);
  await upload(harbour, 'harbour-scan.pdf', 'other', ['']);
  await t.app.deps.ingestion.queue.idle();
});
afterAll(async () => {
  await t.close();
});

const SEARCH = `query($q: String!, $p: Int, $c: String, $h: Boolean, $l: Int) {
  searchDocumentText(query: $q, projectId: $p, category: $c, includeHistorical: $h, limit: $l) {
    data { chunkId projectId projectName documentId documentName category pageNumber excerpt matchedTerm extractionId stableCitation { documentId pageNumber textHash } }
    meta { query expandedTerms totalChunksMatched coverage { totalActiveDocuments documentsWithText documentsWithNoText preFilterCandidates } }
  } }`;
const FIND = `query($q: String!, $c: String, $h: Boolean, $l: Int) {
  findProjectsMentioning(query: $q, category: $c, includeHistorical: $h, limit: $l) {
    data { projectId projectName matchCount categoriesMatched bestExcerpt }
    meta { query expandedTerms totalProjects coverage { totalActiveDocuments documentsWithText documentsWithNoText preFilterCandidates } }
  } }`;
const DOCS = `query($p: Int!, $c: String, $h: Boolean) { projectDocuments(projectId: $p, category: $c, includeHistorical: $h) {
  data { documentId name category type indexed extractionStatus extractionMethod pageCount rawTextLength indexedAt }
  meta { projectId totalDocuments includeHistorical } } }`;
const CONTEXT = `query($id: Int!, $b: Int, $a: Int) { documentContext(chunkId: $id, before: $b, after: $a) {
  data { chunkId chunkIndex pageNumber isCenter text stableCitation { documentId pageNumber textHash } }
  meta { chunkId documentId projectId extractionId beforeReturned afterReturned } } }`;

const search = (vars: Record<string, unknown>, plan = 'pro') => t.gql(SEARCH, vars, tokens[plan]);

describe('search-document-text', () => {
  it('the spec example: 30 inch finds the inch mark, 30-inch and the corrupted forms, and no phantom', async () => {
    const res = await search({ q: '30 inch gas range' });
    expect(res.errors).toBeUndefined();
    const names = res.data.searchDocumentText.data.map((h: any) => h.documentName).sort();
    expect(names).toEqual([
      'harbour-brochure.pdf',
      'harbour-features.pdf',
      'lakeside-fact-sheet.pdf',
      'lakeside-features.pdf',
    ]);
    const meta = res.data.searchDocumentText.meta;
    expect(meta.totalChunksMatched).toBe(4);
    expect(meta.expandedTerms[0]).toBe('30 inch gas range');
    expect(meta.coverage.preFilterCandidates).toBeGreaterThanOrEqual(4);
    const hit = res.data.searchDocumentText.data.find((h: any) => h.documentName === 'harbour-features.pdf');
    expect(hit.excerpt).toContain('30" gas range');
    expect(hit.stableCitation).toEqual({
      documentId: hit.documentId,
      pageNumber: 1,
      textHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect((await search({ q: 'inch island' })).data.searchDocumentText.meta.totalChunksMatched).toBe(1);
    expect((await search({ q: '30 inch island' })).data.searchDocumentText.meta.totalChunksMatched).toBe(0);
    expect((await search({ q: 'inch pleat' })).data.searchDocumentText.meta.totalChunksMatched).toBe(0);
  });

  it('bridges spelling variants through synonyms', async () => {
    for (const q of ['quartz countertops', 'quartz counter-tops', 'quartz counter tops']) {
      const res = await search({ q });
      expect({ q, n: res.data.searchDocumentText.meta.totalChunksMatched }).toEqual({ q, n: 3 });
    }
  });

  it('drops quotes wrapped around a phrase but keeps a trailing inch mark', async () => {
    for (const q of ['"quartz countertops"', '\u201cquartz countertops\u201d', "'quartz countertops'"]) {
      const meta = (await search({ q })).data.searchDocumentText.meta;
      expect({ q, query: meta.query, n: meta.totalChunksMatched }).toEqual({
        q,
        query: 'quartz countertops',
        n: 3,
      });
    }
    const inch = (await search({ q: '30" gas range' })).data.searchDocumentText.meta;
    expect(inch.query).toBe('30" gas range');
    expect(inch.totalChunksMatched).toBe(4);
  });

  it('an absent term returns 0 with coverage still filled', async () => {
    const res = await search({ q: 'rooftop helipad', p: Number(harbour) });
    expect(res.data.searchDocumentText.data).toEqual([]);
    expect(res.data.searchDocumentText.meta.totalChunksMatched).toBe(0);
    expect(res.data.searchDocumentText.meta.coverage).toMatchObject({
      totalActiveDocuments: 5,
      documentsWithText: 4,
      documentsWithNoText: 1,
    });
  });

  it('scopes by project and category, and applies the limit after counting', async () => {
    const scoped = await search({ q: 'gas range', p: Number(lakeside), c: 'fact-sheet' });
    expect(scoped.data.searchDocumentText.data.map((h: any) => h.documentName)).toEqual([
      'lakeside-fact-sheet.pdf',
    ]);
    const limited = await search({ q: 'gas range', l: 1 });
    expect(limited.data.searchDocumentText.data).toHaveLength(1);
    expect(limited.data.searchDocumentText.meta.totalChunksMatched).toBe(4);
  });

  it.each([
    [{ q: '' }, /^query: must not be empty/],
    [{ q: 'x'.repeat(201) }, /^query: must be at most 200/],
    [{ q: 'gas', l: 26 }, /^limit: must be an integer from 1 to 25/],
    [{ q: 'gas', l: 0 }, /^limit:/],
    [{ q: 'gas', c: 'floor-plans' }, /^category: must be one of/],
  ])('validates %j', async (vars, message) => {
    const res = await search(vars);
    expect(res.errors?.[0]).toMatchObject({
      message: expect.stringMatching(message),
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });
});

describe('project-scoped search from the search index (rare words)', () => {
  it('after ANALYZE, words in under 1% of chunks start from the index, common ones from the chunks: same answers', async () => {
    // 120 more chunks, so that a word found once is in under 1% of them.
    await upload(
      lakeside,
      'lakeside-pages.pdf',
      'brochure',
      Array.from({ length: 120 }, (_, i) => `Page ${i}: the lobby, amenities and the concierge desk.`),
    );
    await t.app.deps.ingestion.queue.idle();
    const scoped = async (q: string) => {
      const res = await search({ q, p: Number(harbour) });
      expect(res.errors).toBeUndefined();
      const { data, meta } = res.data.searchDocumentText;
      return { chunks: data.map((h: any) => [h.documentName, h.pageNumber]), total: meta.totalChunksMatched };
    };
    const queries = ['drapery', 'frameless glass shower', 'lobby', 'gas range', 'assignment', 'wine fridge'];
    // One at a time: a credential has at most two searches in flight.
    const all = async () => {
      const answers = [];
      for (const q of queries) answers.push(await scoped(q));
      return answers;
    };
    const before = await all();

    const pool = (await t.app.db.orm.em.getConnection('read').getNativeClient()) as {
      query: (sql: string) => Promise<{ rows: { elems: string[] | null; freqs: number[] | null }[] }>;
    };
    await pool.query('analyze chunk');
    forgetLexemeFrequencies(pool);
    const { rows } = await pool.query(
      `select most_common_elems::text::text[] as elems, most_common_elem_freqs as freqs from pg_stats
        where schemaname = current_schema() and tablename = 'chunk' and attname = 'search_vector'`,
    );
    const frequencies = new Map(rows[0].elems!.map((e, i) => [e, Number(rows[0].freqs![i])]));
    const path = (q: string) =>
      projectPath(lexemesOf(searchQueryLiteral(expandQuery(q).terms)!), frequencies);
    expect(path('drapery')).toBe('index');
    expect(path('lobby')).toBe('chunks');

    // Searched again, not the answers kept from before: ANALYZE changes no generation, so without
    // this the comparison would be of kept answers and could not fail.
    forgetSearchAnswers();
    const after = await all();
    expect(after).toEqual(before);
    expect(after[0]).toEqual({ chunks: [['harbour-features.pdf', 2]], total: 1 });
    expect(after[2].total).toBeGreaterThan(1);
  });
});

describe('plans', () => {
  it('sandbox and essential get the permission error from all four', async () => {
    for (const plan of ['sandbox', 'essential']) {
      for (const [q, vars] of [
        [SEARCH, { q: 'gas' }],
        [FIND, { q: 'gas' }],
        [DOCS, { p: Number(harbour) }],
        [CONTEXT, { id: 1 }],
      ] as const) {
        const res = await t.gql(q, vars, tokens[plan]);
        expect(res.errors?.[0]?.extensions?.appCode).toBe('PLAN_UPGRADE_REQUIRED');
        expect(res.errors?.[0]?.message).toMatch(/Pro/);
      }
    }
  });

  it('pro silently ignores include_historical; elite gets the older revision', async () => {
    const pro = await search({ q: 'assignment fee', h: true }, 'pro');
    expect(pro.errors).toBeUndefined();
    expect(pro.data.searchDocumentText.meta.totalChunksMatched).toBe(0);
    const elite = await search({ q: 'assignment fee', h: true }, 'elite');
    expect(elite.data.searchDocumentText.data.map((h: any) => h.documentName)).toEqual([
      'harbour-prices-v1.pdf',
    ]);
    expect(
      (await search({ q: 'assignment fee' }, 'elite')).data.searchDocumentText.meta.totalChunksMatched,
    ).toBe(0);
    const proDocs = await t.gql(DOCS, { p: Number(harbour), h: true }, tokens.pro);
    expect(proDocs.data.projectDocuments.meta.includeHistorical).toBe(false);
    const eliteDocs = await t.gql(DOCS, { p: Number(harbour), h: true }, tokens.elite);
    expect(eliteDocs.data.projectDocuments.meta).toMatchObject({
      includeHistorical: true,
      totalDocuments: 6,
    });
  });
});

describe('find-projects-mentioning', () => {
  it('ranks by match count, counts projects before the limit', async () => {
    const res = await t.gql(FIND, { q: '30 inch gas range' }, tokens.pro);
    const body = res.data.findProjectsMentioning;
    expect(body.meta.totalProjects).toBe(2);
    expect(body.data.map((p: any) => p.matchCount)).toEqual([2, 2]);
    expect(body.data.map((p: any) => p.projectName).sort()).toEqual(['Harbour Lights', 'Lakeside Towns']);
    const ranked = await t.gql(FIND, { q: 'quartz countertops' }, tokens.pro);
    expect(ranked.data.findProjectsMentioning.data.map((p: any) => [p.projectName, p.matchCount])).toEqual([
      ['Harbour Lights', 2],
      ['Lakeside Towns', 1],
    ]);
    const brochureOnly = await t.gql(FIND, { q: 'quartz countertops', c: 'brochure' }, tokens.pro);
    expect(brochureOnly.data.findProjectsMentioning.data).toMatchObject([
      { projectName: 'Harbour Lights', matchCount: 1, categoriesMatched: ['brochure'] },
    ]);
    expect(body.data.find((p: any) => p.projectName === 'Lakeside Towns').categoriesMatched).toEqual([
      'fact-sheet',
      'features-finishes',
    ]);
    const limited = await t.gql(FIND, { q: 'EV charging', l: 1 }, tokens.pro);
    expect(limited.data.findProjectsMentioning).toMatchObject({
      data: [{ projectName: 'Lakeside Towns', matchCount: 1 }],
      meta: { totalProjects: 1 },
    });
    expect((await t.gql(FIND, { q: 'gas', l: 51 }, tokens.pro)).errors?.[0]?.message).toMatch(
      /^limit: must be an integer from 1 to 50/,
    );
  });
});

describe('list-project-documents', () => {
  it('lists every document including unindexed ones, with status', async () => {
    const res = await t.gql(DOCS, { p: Number(harbour) }, tokens.pro);
    const body = res.data.projectDocuments;
    expect(body.meta).toEqual({ projectId: Number(harbour), totalDocuments: 5, includeHistorical: false });
    const scan = body.data.find((d: any) => d.name === 'harbour-scan.pdf');
    expect(scan).toMatchObject({ indexed: false, extractionStatus: 'no_text', category: 'other' });
    const features = body.data.find((d: any) => d.name === 'harbour-features.pdf');
    expect(features).toMatchObject({
      indexed: true,
      extractionStatus: 'completed',
      pageCount: 2,
      extractionMethod: expect.stringMatching(/^unpdf/),
    });
    expect(features.indexedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
    expect((await t.gql(DOCS, { p: Number(empty) }, tokens.pro)).data.projectDocuments.data).toEqual([]);
    expect((await t.gql(DOCS, { p: 999999 }, tokens.pro)).errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });
});

describe('fetch-document-context', () => {
  it('returns neighbours in document order, flags the centre, and stops at the edges', async () => {
    const hit = (await search({ q: 'Paragraph 30', p: Number(harbour) })).data.searchDocumentText.data[0];
    const res = await t.gql(CONTEXT, { id: hit.chunkId, b: 2, a: 2 }, tokens.pro);
    const body = res.data.documentContext;
    expect(body.data.map((c: any) => c.isCenter)).toEqual(
      [false, false, true, false, false].slice(0, body.data.length),
    );
    expect(body.data.map((c: any) => c.chunkIndex)).toEqual(
      [...body.data.map((c: any) => c.chunkIndex)].sort((a, b) => a - b),
    );
    expect(body.meta).toMatchObject({
      chunkId: hit.chunkId,
      documentId: hit.documentId,
      projectId: Number(harbour),
      beforeReturned: 2,
      afterReturned: 2,
    });
    const first = (await search({ q: 'Paragraph 0', p: Number(harbour) })).data.searchDocumentText.data[0];
    const edge = await t.gql(CONTEXT, { id: first.chunkId, b: 5, a: 0 }, tokens.pro);
    expect(edge.data.documentContext.meta).toMatchObject({ beforeReturned: 0, afterReturned: 0 });
    expect(edge.data.documentContext.data).toHaveLength(1);
    expect((await t.gql(CONTEXT, { id: hit.chunkId, b: 6 }, tokens.pro)).errors?.[0]?.message).toMatch(
      /^before: must be an integer from 0 to 5/,
    );
  });

  it('a chunk id of a re-indexed document answers not found, and a new search yields new ids', async () => {
    const before = (await search({ q: 'EV charging' })).data.searchDocumentText.data[0];
    await t.gql(
      `mutation($id: Int!) { reindexDocument(documentId: $id) { id } }`,
      { id: before.documentId },
      t.operator,
    );
    await t.app.deps.ingestion.queue.idle();
    const stale = await t.gql(CONTEXT, { id: before.chunkId }, tokens.pro);
    expect(stale.errors?.[0]).toMatchObject({
      extensions: { code: 'NOT_FOUND' },
      // GraphQL callers get the domain's words: no MCP tool names.
      message: `chunk ${before.chunkId} not found: it may belong to an older extraction of a re-indexed document`,
    });
    const after = (await search({ q: 'EV charging' })).data.searchDocumentText.data[0];
    expect(after.chunkId).not.toBe(before.chunkId);
    expect(after.extractionId).not.toBe(before.extractionId);
    expect(after.stableCitation).toEqual(before.stableCitation);
  });
});

describe('find-projects-mentioning at its limit', () => {
  // Match count orders first; relevance breaks the ties, also at the last place a limit shows.
  it('breaks a tie at the last place shown by relevance, not by project id', async () => {
    const pages: Record<string, string[]> = {
      'Solarium Three': ['A solarium.', 'A second solarium.', 'A third solarium.'],
      'Solarium Dense': ['Solarium, solarium: a solarium.', 'The solarium and the solarium deck.'],
      'Solarium Sparse': ['One solarium.', 'Another solarium.'],
      'Solarium One': ['The solarium.'],
    };
    // Made in reverse, so that the project id (the last tie-break) orders them the other way.
    const order = Object.keys(pages);
    for (const name of [...order].reverse()) {
      const id = (await createProject(t, { name })).id;
      await upload(id, `${name}.pdf`, 'brochure', pages[name]);
    }
    await t.app.deps.ingestion.queue.idle();
    for (let l = 1; l <= 4; l++) {
      const res = await t.gql(FIND, { q: 'solarium', l }, tokens.pro);
      expect(res.errors).toBeUndefined();
      const body = res.data.findProjectsMentioning;
      expect({ l, shown: body.data.map((p: any) => [p.projectName, p.matchCount]) }).toEqual({
        l,
        shown: order.slice(0, l).map((name) => [name, pages[name].length]),
      });
      expect(body.meta.totalProjects).toBe(4);
      expect(body.meta.coverage.preFilterCandidates).toBe(8);
      for (const p of body.data) expect(p.bestExcerpt.toLowerCase()).toContain('solarium');
    }
  });
});
