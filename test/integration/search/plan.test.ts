import { searchQueryLiteral } from '../../../src/search/text/lexemes.js';
import { expandQuery } from '../../../src/search/query/synonyms.js';
import { startTestApp, type TestApp } from '../../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('pre-filter query plan', () => {
  it('uses the GIN index on chunk.search_vector', async () => {
    const pool = (await t.app.db.orm.em.getConnection().getNativeClient()) as any;
    const client = await pool.connect();
    try {
      // Tiny test tables favour a sequential scan; disabling it shows whether the index can serve the query.
      await client.query('begin');
      await client.query('set local enable_seqscan = off');
      const res = await client.query(
        `explain select c.id from chunk c where c.search_vector @@ $1::tsquery`,
        [searchQueryLiteral(expandQuery('quartz countertops').terms)],
      );
      const plan = res.rows.map((r: any) => r['QUERY PLAN']).join('\n');
      expect(plan).toMatch(/Bitmap Index Scan on chunk_search_vector_gin/);
      await client.query('rollback');
    } finally {
      client.release();
    }
  });
});
