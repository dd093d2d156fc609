import { openDatabase, type Database } from '../../../src/db/orm.js';
import { searchQueryLiteral, searchVectorLiteral } from '../../../src/search/lexemes.js';
import { NORMALIZER_VERSION, normalizeText } from '../../../src/search/normalize.js';

/** Chunks normalized by normalizer 1 are normalized again from their raw text. */
describe('migration to whole numbers and hyphens as spaces', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase({ databaseUrl: null, dataDir: 'memory://' });
  });
  afterAll(async () => {
    await db.close();
  });

  it('re-normalizes every chunk: the old phantom is gone and the hyphen spelling is found', async () => {
    await db.orm.migrator.up({ to: 'Migration20261123211157_subscription_standing' });
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
      `insert into extraction (document_id, status, normalizer_version, created_at)
       values (?, 'completed', 1, now()) returning id`,
      [document.id],
    );
    const raw = 'Suite 1203: 1,850 sq. ft. with soft-close drawers.';
    // What normalizer 1 stored: the thousands separator split the number, the hyphen stayed.
    const old = '1,850 square feet with soft-close drawers.';
    await conn.execute(
      `insert into chunk (extraction_id, document_id, project_id, chunk_index, page_number, raw_text, search_text, search_vector, text_hash)
       values (?, ?, ?, 0, 1, ?, ?, ?::tsvector, 'h')`,
      [extraction.id, document.id, project.id, raw, old, searchVectorLiteral(old)],
    );
    const hits = () =>
      conn.execute<{ whole: boolean; tail: boolean; compound: boolean }[]>(
        `select search_vector @@ ?::tsquery as whole, search_vector @@ ?::tsquery as tail,
                search_vector @@ ?::tsquery as compound from chunk`,
        ['1850 square feet', '850 square feet', 'soft close'].map((t) => searchQueryLiteral([t])),
      );
    expect(await hits()).toEqual([{ whole: false, tail: true, compound: false }]);

    await db.orm.migrator.up();
    expect(await hits()).toEqual([{ whole: true, tail: false, compound: true }]);
    const [chunk] = await conn.execute<{ search_text: string }[]>(`select search_text from chunk`);
    expect(chunk.search_text).toBe(normalizeText(raw));
    const [version] = await conn.execute<{ normalizer_version: number }[]>(
      `select normalizer_version from extraction`,
    );
    expect(version.normalizer_version).toBe(NORMALIZER_VERSION);
    // ...and the vocabulary migration recorded its words (compound splitting reads them)
    const words = await conn.execute<{ word: string }[]>(`select word from search_vocabulary order by word`);
    expect(words.map((w) => w.word)).toEqual(expect.arrayContaining(['soft', 'close', 'drawers', 'suite']));
  });
});
