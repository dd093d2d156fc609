import { openDatabase, type Database } from '../../../src/db/orm.js';
import { registry } from '../../../src/metrics/metrics.js';
import { searchQueryLiteral, searchVectorLiteral } from '../../../src/search/text/lexemes.js';
import { NORMALIZER_VERSION, normalizeText } from '../../../src/search/text/normalize.js';
import { rederivationProgress, rederiveSearchText } from '../../../src/search/text/rederive.js';

/**
 * Stored search text is derived again by a background job keyed on the normalizer's version, never
 * by a migration: migrations only mark what they affect (version 0), and the job brings every
 * chunk to the current normalizer, one extraction at a time, logging its progress.
 */
describe('re-deriving stored search text under the current normalizer', () => {
  let db: Database;
  const logged: { fields: object; message: string }[] = [];
  const log = {
    info: (fields: object, message: string) => logged.push({ fields, message }),
    warn: (fields: object, message: string) => logged.push({ fields, message }),
  };

  beforeEach(async () => {
    db = await openDatabase({ databaseUrl: null, dataDir: 'memory://' });
    logged.length = 0;
  });
  afterEach(async () => {
    await db.close();
  });

  const conn = () => db.orm.em.getConnection();

  async function extractionWithChunks(version: number | null, chunks: { raw: string; text: string }[]) {
    const [project] = await conn().execute<{ id: number }[]>(
      `insert into project (name, slug, city, created_at) values ('P', 'p' || random(), 'C', now()) returning id`,
    );
    const [document] = await conn().execute<{ id: number }[]>(
      `insert into document (project_id, name, category, content_hash, byte_size, content, created_at)
       values (?, 'a.pdf', 'brochure', 'h', 0, '\\x'::bytea, now()) returning id`,
      [project.id],
    );
    const [extraction] = await conn().execute<{ id: number }[]>(
      `insert into extraction (document_id, status, normalizer_version, created_at)
       values (?, 'completed', ?, now()) returning id`,
      [document.id, version],
    );
    for (const [i, { raw, text }] of chunks.entries()) {
      await conn().execute(
        `insert into chunk (extraction_id, document_id, project_id, chunk_index, page_number, raw_text, search_text, search_vector, text_hash)
         values (?, ?, ?, ?, 1, ?, ?, ?::tsvector, 'h')`,
        [extraction.id, document.id, project.id, i, raw, text, searchVectorLiteral(text)],
      );
    }
    return extraction.id;
  }

  const hits = (terms: string[]) =>
    conn().execute<{ hit: boolean }[]>(`select search_vector @@ ?::tsquery as hit from chunk order by id`, [
      searchQueryLiteral(terms),
    ]);

  it('migrations mark old chunks, and the job derives them again: the price-list rows read as the table shows them', async () => {
    await db.orm.migrator.up({ to: 'Migration20261123211157_subscription_standing' });
    // A price list indexed by normalizer 1: its columns run together, the comma-grouped price split.
    const raw = 'Suite 805\t850 sq ft\t$749,900\nPlan B\t$650,000\t600 sq ft\nsoft-close drawers';
    const old = 'suite 805 850 square feet $749,900 plan b $650,000 600 square feet soft-close drawers';
    await extractionWithChunks(1, [{ raw, text: old }]);
    await db.orm.migrator.up();
    const [marked] = await conn().execute<{ normalizer_version: number }[]>(
      `select normalizer_version from extraction`,
    );
    expect(marked.normalizer_version).toBe(0);
    // The migrations derived nothing: the old text is still there.
    expect(
      (await conn().execute<{ search_text: string }[]>(`select search_text from chunk`))[0].search_text,
    ).toBe(old);

    expect(await rederiveSearchText(db.orm.em, log)).toBe(1);
    const [chunk] = await conn().execute<{ search_text: string }[]>(`select search_text from chunk`);
    expect(chunk.search_text).toBe(normalizeText(raw));
    expect(await hits(['850 square feet'])).toEqual([{ hit: true }]);
    expect(await hits(['650000'])).toEqual([{ hit: true }]);
    expect(await hits(['805850 square feet', '805 850 square feet'])).toEqual([{ hit: false }]);
    expect(await hits(['soft close'])).toEqual([{ hit: true }]);
    const [version] = await conn().execute<{ normalizer_version: number }[]>(
      `select normalizer_version from extraction`,
    );
    expect(version.normalizer_version).toBe(NORMALIZER_VERSION);
    const words = await conn().execute<{ word: string }[]>(
      `select word from search_vocabulary order by word`,
    );
    expect(words.map((w) => w.word)).toEqual(expect.arrayContaining(['soft', 'close', 'drawers', 'suite']));
  });

  it('rebuilds the vectors of chunks indexed before the exact pre-filter', async () => {
    await db.orm.migrator.up({ to: 'Migration20261122190145_oauth' });
    const [project] = await conn().execute<{ id: number }[]>(
      `insert into project (name, slug, city, created_at) values ('P', 'p', 'C', now()) returning id`,
    );
    const [document] = await conn().execute<{ id: number }[]>(
      `insert into document (project_id, name, category, content_hash, byte_size, content, created_at)
       values (?, 'a.pdf', 'brochure', 'h', 0, '\\x'::bytea, now()) returning id`,
      [project.id],
    );
    const [extraction] = await conn().execute<{ id: number }[]>(
      `insert into extraction (document_id, status, created_at) values (?, 'completed', now()) returning id`,
      [document.id],
    );
    const raws = ['Quartz countertops, 30" gas range.', 'quartz; countertops nearby'];
    for (const [i, raw] of raws.entries()) {
      await conn().execute(
        `insert into chunk (extraction_id, document_id, project_id, chunk_index, page_number, raw_text, search_text, search_tokens, text_hash)
         values (?, ?, ?, ?, 1, ?, ?, ?, 'h')`,
        [extraction.id, document.id, project.id, i, raw, raw.toLowerCase(), raw.toLowerCase()],
      );
    }
    await db.orm.migrator.up();
    expect(await hits(['quartz countertops'])).toEqual([{ hit: false }, { hit: false }]);
    await rederiveSearchText(db.orm.em, log);
    const rows = await conn().execute<{ same: boolean }[]>(
      `select search_vector = ?::tsvector as same from chunk order by chunk_index`,
      [searchVectorLiteral(normalizeText(raws[0]))],
    );
    expect(rows).toEqual([{ same: true }, { same: false }]);
    expect(await hits(['quartz countertops'])).toEqual([{ hit: true }, { hit: false }]);
  });

  it('is keyed on the version: resumes where it stopped, logs its progress, and leaves current extractions alone', async () => {
    await db.orm.migrator.up();
    const stale = (n: number) => ({ raw: `Unit ${n}\t450 sq ft`, text: `unit ${n}450 square feet` });
    const current = await extractionWithChunks(NORMALIZER_VERSION, [
      { raw: 'Unit 9\t450 sq ft', text: 'kept as it is' },
    ]);
    const first = await extractionWithChunks(NORMALIZER_VERSION - 1, [stale(12), stale(14)]);
    await extractionWithChunks(NORMALIZER_VERSION - 1, [stale(16)]);

    // Stopped after its first extraction (as a process stopping would), then run again.
    const abort = new AbortController();
    const before = rederivationProgress().extractions;
    let calls = 0;
    const stopping = {
      ...log,
      info: (fields: object, message: string) => {
        log.info(fields, message);
        if (++calls === 1) queueMicrotask(() => abort.abort());
      },
    };
    const firstPass = await rederiveSearchText(db.orm.em, stopping, { signal: abort.signal });
    expect(firstPass).toBeLessThan(2);
    expect(await rederiveSearchText(db.orm.em, log)).toBe(2 - firstPass);
    expect(await rederiveSearchText(db.orm.em, log)).toBe(0);
    expect(rederivationProgress()).toMatchObject({
      normalizerVersion: NORMALIZER_VERSION,
      remaining: 0,
      running: false,
      extractions: before + 2,
    });

    const texts = await conn().execute<{ extraction_id: number; search_text: string }[]>(
      `select extraction_id, search_text from chunk order by id`,
    );
    expect(texts.find((c) => c.extraction_id === current)!.search_text).toBe('kept as it is');
    expect(texts.filter((c) => c.extraction_id === first).map((c) => c.search_text)).toEqual([
      'unit 12 | 450 square feet',
      'unit 14 | 450 square feet',
    ]);
    expect(logged.map((l) => l.message)).toEqual(
      expect.arrayContaining([
        'search text: deriving stored chunks again under the current normalizer',
        'search text: every chunk is current',
      ]),
    );
    expect(logged[0].fields).toMatchObject({ normalizerVersion: NORMALIZER_VERSION, remaining: 2 });
    const scraped = await registry.metrics();
    expect(scraped).toMatch(/^pds_search_rederive_remaining_extractions 0$/m);
    expect(scraped).toMatch(
      new RegExp(`^pds_search_rederived_chunks ${rederivationProgress().chunks}$`, 'm'),
    );
  });
});
