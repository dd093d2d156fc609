import { openDatabase, type Database } from '../../../src/db/orm.js';
import { searchQueryLiteral, searchVectorLiteral } from '../../../src/search/lexemes.js';
import { normalizeText, tokenForm } from '../../../src/search/normalize.js';

/** Chunks indexed before the exact pre-filter get their vector rebuilt from their normalized text. */
describe('migration to the exact search vector', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase({ databaseUrl: null, dataDir: 'memory://' });
  });
  afterAll(async () => {
    await db.close();
  });

  it('rebuilds every existing chunk, after which the exact query finds it and not a phantom', async () => {
    await db.orm.migrator.up({ to: 'Migration20261122190145_oauth' });
    const conn = db.orm.em.getConnection();
    const [project] = await conn.execute<{ id: number }[]>(
      `insert into project (name, slug, city, created_at) values ('P', 'p', 'C', now()) returning id`,
    );
    const [document] = await conn.execute<{ id: number }[]>(
      `insert into document (project_id, name, category, content_hash, byte_size, content, created_at)
       values (?, 'a.pdf', 'brochure', 'h', 0, '\\x'::bytea, now()) returning id`,
      [project.id],
    );
    const [extraction] = await conn.execute<{ id: number }[]>(
      `insert into extraction (document_id, status, created_at) values (?, 'completed', now()) returning id`,
      [document.id],
    );
    const texts = ['Quartz countertops, 30" gas range.', 'quartz; countertops nearby'].map(normalizeText);
    for (const [i, text] of texts.entries()) {
      await conn.execute(
        `insert into chunk (extraction_id, document_id, project_id, chunk_index, page_number, raw_text, search_text, search_tokens, text_hash)
         values (?, ?, ?, ?, 1, ?, ?, ?, 'h')`,
        [extraction.id, document.id, project.id, i, text, text, tokenForm(text)],
      );
    }
    await db.orm.migrator.up();
    const rows = await conn.execute<{ same: boolean; hit: boolean }[]>(
      `select search_vector = ?::tsvector as same, search_vector @@ ?::tsquery as hit from chunk order by chunk_index`,
      [searchVectorLiteral(texts[0]), searchQueryLiteral(['quartz countertops'])],
    );
    expect(rows).toEqual([
      { same: true, hit: true },
      { same: false, hit: false },
    ]);
  });
});
