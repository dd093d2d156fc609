import pg from 'pg';
import { searchCacheCounts } from '../../../src/search/search-cache.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { createProject, memberToken } from '../../support/factories.js';
import { makePdf, UPLOAD } from '../../support/pdf.js';

/**
 * Answers are kept per node under the search and catalogue generations (src/search/search-cache.ts)
 * and given again only while nothing they were read from has changed. Changes here are made as an
 * upload would and with plain SQL around the app, as another node or psql would.
 */
let t: TestApp;
let token = '';
let projectId = 0;

async function sql(text: string, params: unknown[] = []): Promise<void> {
  await t.app.db.orm.em.fork().getConnection().execute(text, params);
}

async function upload(name: string, pages: string[]): Promise<number> {
  const res = await t.gql(
    UPLOAD,
    {
      input: {
        projectId,
        name,
        category: 'features-finishes',
        contentBase64: (await makePdf(pages)).toString('base64'),
      },
    },
    t.operator,
  );
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  await t.app.deps.ingestion.queue.idle();
  return res.data.uploadDocument.document.id;
}

const SEARCH = `query($q: String!, $p: Int) { searchDocumentText(query: $q, projectId: $p) {
  data { chunkId projectName documentName excerpt }
  meta { totalChunksMatched coverage { totalActiveDocuments documentsWithText documentsWithNoText } } } }`;
const FIND = `query($q: String!) { findProjectsMentioning(query: $q) {
  data { projectId projectName matchCount } meta { totalProjects } } }`;

/** The answer, and whether it came from the cache. */
async function ask(query: string, vars: Record<string, unknown>): Promise<{ data: any; cached: boolean }> {
  const before = searchCacheCounts().hits;
  const res = await t.gql(query, vars, token);
  expect(res.errors).toBeUndefined();
  return { data: res.data, cached: searchCacheCounts().hits > before };
}
const search = (q = 'quartz countertops') => ask(SEARCH, { q, p: projectId });

let first = 0;
beforeAll(async () => {
  t = await startTestApp();
  token = (await memberToken(t, 'pro')).secret;
  projectId = (await createProject(t, { name: 'Cache Towers' })).id;
  first = await upload('first.pdf', ['Quartz countertops in every kitchen.']);
});
afterAll(async () => {
  await t.close();
});

describe('search answers kept by generation', () => {
  it('gives the same answer again from the cache while nothing changed, without a round trip of its own', async () => {
    const a = await search();
    // None of the search's own statements (begin, its statement, commit) run for a kept answer.
    const statements: string[] = [];
    const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
    const query = Object.getOwnPropertyDescriptor(proto, 'query')!.value as (...args: unknown[]) => unknown;
    proto.query = function (this: pg.Client, ...args: unknown[]) {
      const text = args[0];
      statements.push(typeof text === 'string' ? text : String((text as { text?: string })?.text));
      return query.apply(this, args);
    };
    let b: Awaited<ReturnType<typeof search>>;
    try {
      b = await search();
    } finally {
      proto.query = query;
    }
    expect(statements.filter((sql) => /\bbegin\b|search_vector/.test(sql))).toEqual([]);
    expect(b.cached).toBe(true);
    expect(b.data).toEqual(a.data);
    expect(a.data.searchDocumentText.meta.totalChunksMatched).toBe(1);
    // Another query, scope or limit is another answer.
    expect((await search('kitchen')).cached).toBe(false);
    expect((await ask(SEARCH, { q: 'quartz countertops' })).cached).toBe(false);
  });

  it('an upload ends the kept answers', async () => {
    await search();
    const second = await upload('second.pdf', ['More quartz countertops.']);
    const after = await search();
    expect(after.cached).toBe(false);
    expect(after.data.searchDocumentText.meta.totalChunksMatched).toBe(2);
    await sql('delete from document where id = ?', [second]);
  });

  it.each([
    [
      'a document renamed',
      'update document set name = ? where id = ?',
      ['renamed.pdf'],
      (d: any) => expect(d.searchDocumentText.data[0].documentName).toBe('renamed.pdf'),
    ],
    [
      'a project renamed',
      'update project set name = ? where id = ?',
      ['Renamed Towers'],
      (d: any) => expect(d.searchDocumentText.data[0].projectName).toBe('Renamed Towers'),
    ],
    [
      'an extraction marked failed',
      "update extraction set status = 'failed' where document_id = ?",
      [],
      (d: any) => expect(d.searchDocumentText.meta.coverage.documentsWithNoText).toBe(1),
    ],
    [
      'a chunk deleted',
      'delete from chunk where document_id = ?',
      [],
      (d: any) => expect(d.searchDocumentText.meta.totalChunksMatched).toBe(0),
    ],
  ])('%s with plain SQL shows at the next search', async (_what, statement, params, check) => {
    await search();
    expect((await search()).cached).toBe(true);
    const id = statement.includes('project') ? projectId : first;
    await sql(statement, [...params, id]);
    const after = await search();
    expect(after.cached).toBe(false);
    check(after.data);
  });

  it("a worker's other writes to an extraction keep the answers", async () => {
    await search('kitchen');
    await sql('update extraction set attempts = attempts + 1 where document_id = ?', [first]);
    expect((await search('kitchen')).cached).toBe(true);
  });

  it('find-projects-mentioning is kept and ended the same way', async () => {
    await upload('third.pdf', ['Wine fridge in the pantry.']);
    const a = await ask(FIND, { q: 'wine fridge' });
    const b = await ask(FIND, { q: 'wine fridge' });
    expect(b.cached).toBe(true);
    expect(b.data).toEqual(a.data);
    expect(a.data.findProjectsMentioning.data[0].matchCount).toBe(1);
    await upload('fourth.pdf', ['A second wine fridge by the bar.']);
    const c = await ask(FIND, { q: 'wine fridge' });
    expect(c.cached).toBe(false);
    expect(c.data.findProjectsMentioning.data[0].matchCount).toBe(2);
  });
});
