import pg from 'pg';
import { generationsFor } from '../../../src/db/generation.js';
import { EXTRACTION_STATUSES } from '../../../src/enums.js';
import { forgetSearchAnswers, searchCacheCounts } from '../../../src/search/query/search-cache.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { createProject, memberToken } from '../../support/factories.js';
import { makePdf, UPLOAD } from '../../support/pdf.js';
import { itWith } from '../../support/requirements.js';

/**
 * Answers are kept per node under the search and catalogue generations (src/search/query/search-cache.ts)
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

type Method = (...args: unknown[]) => unknown;
const queryProto = pg.Query.prototype as unknown as { submit: Method; text?: string };
const clientProto = pg.Client.prototype as unknown as { query: Method };

/**
 * Runs `fn` with the text of every statement any pg client sends recorded (at the protocol, under
 * every wrapper); `before` is awaited first for each statement a client is asked to run.
 */
async function recording<T>(
  fn: () => Promise<T>,
  before?: (text: string) => Promise<void>,
): Promise<{ value: T; statements: string[] }> {
  const statements: string[] = [];
  const submit = queryProto.submit;
  const clientQuery = clientProto.query;
  queryProto.submit = function (this: { text?: string }, ...args: unknown[]) {
    statements.push(String(this.text));
    return submit.apply(this, args);
  };
  if (before) {
    clientProto.query = function (this: pg.Client, ...args: unknown[]) {
      const first = args[0];
      const text = typeof first === 'string' ? first : String((first as { text?: string })?.text);
      return before(text).then(() => clientQuery.apply(this, args));
    };
  }
  try {
    return { value: await fn(), statements };
  } finally {
    queryProto.submit = submit;
    clientProto.query = clientQuery;
  }
}

let first = 0;
beforeAll(async () => {
  t = await startTestApp();
  // The statements recorded here are the search's own: the background loops that also run
  // statements on their own timers (webhook fan-out and delivery, change-event retention) stop.
  await t.app.webhooks.stop();
  await t.app.changeEvents.stop();
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
    const { value: b, statements } = await recording(() => search());
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

  it("a worker's claim of an extraction (pending to processing) keeps the answers", async () => {
    await sql("update extraction set status = 'pending' where document_id = ?", [first]);
    await search('kitchen');
    expect((await search('kitchen')).cached).toBe(true);
    // The claim's own statement (src/ingestion/ingest.service.ts processExtraction).
    await sql(
      "update extraction set status = 'processing', attempts = attempts + 1 where document_id = ? and status in ('pending', 'processing')",
      [first],
    );
    expect((await search('kitchen')).cached).toBe(true);
    await sql("update extraction set status = 'completed' where document_id = ?", [first]);
    expect((await search('kitchen')).cached).toBe(false);
  });

  it('a change of status moves the search generation exactly when it changes the coverage an answer shows', async () => {
    // A fresh fork each time: generationsFor reads once per request's EntityManager.
    const generation = async () => (await generationsFor(t.app.db.orm.em.fork())).search;
    const coverage = async () => {
      forgetSearchAnswers();
      return (await search()).data.searchDocumentText.meta.coverage;
    };
    const setStatus = (status: string) =>
      sql('update extraction set status = ? where document_id = ?', [status, first]);
    const differences: string[] = [];
    for (const from of EXTRACTION_STATUSES) {
      for (const to of EXTRACTION_STATUSES) {
        await setStatus(from);
        const [g0, c0] = [await generation(), await coverage()];
        await setStatus(to);
        const [g1, c1] = [await generation(), await coverage()];
        const moved = g1 !== g0;
        const changed = JSON.stringify(c1) !== JSON.stringify(c0);
        if (moved !== changed)
          differences.push(`${from} -> ${to}: generation moved ${moved}, coverage changed ${changed}`);
      }
    }
    await setStatus('completed');
    expect(differences).toEqual([]);
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

describe('a search in one statement', () => {
  // On PostgreSQL a request's connections carry DB_STATEMENT_TIMEOUT_MS (src/db/orm.ts), no
  // longer than a search's deadline: a search whose compound spellings are known at the request's
  // generation runs as its one statement. The embedded database sets no deadline on its
  // connections, so there every search opens its transaction and sets its own.
  const oneStatement = () => t.app.db.pglite === null;

  it('runs only its own statement once the vocabulary has answered for its spellings', async () => {
    await search('heated floors');
    forgetSearchAnswers();
    const { value, statements } = await recording(() => search('heated floors'));
    expect(value.cached).toBe(false);
    const own = statements.filter((sql) => /\bbegin\b|\bcommit\b|search_vocabulary|search_vector/.test(sql));
    if (oneStatement()) {
      expect(own).toHaveLength(1);
      expect(own[0]).toMatch(/search_vector/);
      expect(own[0]).toMatch(/search_generation/);
    } else {
      expect(own.some((sql) => /\bbegin\b/.test(sql))).toBe(true);
    }
  });

  // Only PostgreSQL takes the one-statement path (above); on the embedded database the search's
  // transaction has its snapshot before the change, and one connection, which the change would wait for.
  itWith(!!process.env.DATABASE_URL, 'a PostgreSQL server (DATABASE_URL)')(
    'answers exactly when the vocabulary changes between the request and its statement',
    async () => {
      await upload('joined.pdf', ['A winefridge under the island.']);
      // The vocabulary forgets the joined word (as if never indexed): `wine fridge` misses that chunk.
      await sql("delete from search_vocabulary where word = 'winefridge'");
      const before = await search('wine fridge');
      forgetSearchAnswers();
      // Now the vocabulary learns it again, committed after this request read its generations and
      // before its search statement runs (as another node's upload could be).
      let bumped = false;
      const { value: after } = await recording(
        () => search('wine fridge'),
        async (text) => {
          if (bumped || !/search_vector/.test(text)) return;
          bumped = true;
          const other = new pg.Client({ connectionString: t.config.databaseUrl! });
          await other.connect();
          await other.query("insert into search_vocabulary (word) values ('winefridge')");
          await other.end();
        },
      );
      expect(bumped).toBe(true);
      expect(after.data.searchDocumentText.meta.totalChunksMatched).toBe(
        before.data.searchDocumentText.meta.totalChunksMatched + 1,
      );
      expect(after.data.searchDocumentText.data.map((h: any) => h.documentName)).toContain('joined.pdf');
    },
  );
});
