import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { CATEGORIES } from '../../src/enums.js';
import { searchVectorLiteral } from '../../src/search/text/lexemes.js';
import { normalizeText } from '../../src/search/text/normalize.js';
import { prng } from './stats.js';

/**
 * A large synthetic chunk table for the search benchmark, loaded with COPY. Chunks are built from
 * domain sentences, run through the real normalizer (the same one ingestion uses), and carry
 * planted terms at known frequencies, in the raw forms PDF extraction produces, plus phantom traps
 * (the words of a term split by punctuation) that the pre-filter finds and the post-filter drops.
 */

export interface PlantedTerm {
  /** What the benchmark searches for. */
  query: string;
  /** Raw forms written into chunks (all reach `query` through normalization or synonyms). */
  forms: string[];
  /** Share of chunks that carry one of the forms. */
  share: number;
}

export const PLANTED: PlantedTerm[] = [
  { query: 'wine fridge', forms: ['wine fridge', 'Wine Fridge'], share: 0.0001 },
  {
    query: 'heated bathroom floors',
    forms: ['heated bathroom floors', 'Heated bathroom floors'],
    share: 0.001,
  },
  {
    query: '30 inch gas range',
    forms: ['30" gas range', '30-inch gas range', '30\u00e2\u20ac\u00b3 gas range', '30\u2033 gas range'],
    share: 0.01,
  },
  {
    query: 'quartz countertops',
    forms: ['quartz countertops', 'quartz counter-tops', 'Quartz Countertops'],
    share: 0.05,
  },
];

/** Same words as a planted term, split by punctuation: pre-filter candidates, not matches. */
const TRAPS = [
  { text: 'wine. Fridge', share: 0.0001 },
  { text: 'quartz; countertops', share: 0.005 },
];

export const ROOMS = [
  'kitchen',
  'living room',
  'primary bedroom',
  'ensuite',
  'den',
  'laundry',
  'foyer',
  'balcony',
];
export const FINISHES = [
  'engineered hardwood flooring',
  'porcelain tile',
  'stainless steel appliances',
  'custom cabinetry',
  'frameless glass shower',
  'soft-close drawers',
  'undermount sink',
  'designer light fixtures',
  'smooth ceilings',
  'ceramic backsplash',
];
export const AMENITIES = [
  'fitness centre',
  'party room',
  'rooftop terrace',
  'co-working lounge',
  'pet spa',
  'guest suite',
  'outdoor pool',
  'yoga studio',
  'concierge',
  'parcel room',
];
const PHRASES = [
  (r: () => number) => `The ${pick(r, ROOMS)} features ${pick(r, FINISHES)} and ${pick(r, FINISHES)}.`,
  (r: () => number) => `Residents enjoy a ${pick(r, AMENITIES)} on level ${1 + Math.floor(r() * 40)}.`,
  (r: () => number) =>
    `Suites range from ${400 + Math.floor(r() * 600)} to ${900 + Math.floor(r() * 900)} sq. ft.`,
  (r: () => number) =>
    `Deposit: $${5 + Math.floor(r() * 20)},000 on signing, balance to ${5 + Math.floor(r() * 15)}% in 365 days.`,
  (r: () => number) => `${9 + Math.floor(r() * 2)}' ceilings in principal rooms, per plan.`,
  (r: () => number) =>
    `Occupancy is estimated for ${2027 + Math.floor(r() * 4)}; development charges capped at $${10 + Math.floor(r() * 15)},000.`,
  (r: () => number) =>
    `Assignment fee of $${1 + Math.floor(r() * 9)},${Math.floor(r() * 9)}00 plus HST applies.`,
  (r: () => number) => `A ${pick(r, AMENITIES)} and a ${pick(r, AMENITIES)} complete the amenity floor.`,
];

function pick<T>(r: () => number, values: readonly T[]): T {
  return values[Math.floor(r() * values.length)];
}

export interface SyntheticLayout {
  chunks: number;
  projects: number;
  documentsPerProject: number;
  chunksPerDocument: number;
}

export function layoutFor(chunks: number): SyntheticLayout {
  const chunksPerDocument = 100;
  const documentsPerProject = 5;
  const projects = Math.max(1, Math.ceil(chunks / (chunksPerDocument * documentsPerProject)));
  return { chunks, projects, documentsPerProject, chunksPerDocument };
}

function chunkText(r: () => number): string {
  const sentences: string[] = [];
  let length = 0;
  const target = 450 + Math.floor(r() * 400);
  while (length < target) {
    const s = pick(r, PHRASES)(r);
    sentences.push(s);
    length += s.length + 1;
  }
  for (const term of PLANTED) {
    if (r() < term.share)
      sentences.splice(Math.floor(r() * sentences.length), 0, `Includes ${pick(r, term.forms)}.`);
  }
  for (const trap of TRAPS) {
    if (r() < trap.share) sentences.splice(Math.floor(r() * sentences.length), 0, `${trap.text} nearby.`);
  }
  // Line breaks where a PDF page would put them.
  return sentences.join(r() < 0.5 ? '\n' : ' ');
}

/** COPY text format: backslash, tab, newline and carriage return escaped. */
function copyField(value: string | number): string {
  return String(value).replace(/[\\\t\n\r]/g, (c) =>
    c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r',
  );
}

/**
 * Creates the projects, documents and completed extractions, then COPYs the chunks in with the
 * chunk indexes dropped and rebuilt after (how a bulk load is done). Returns the project ids.
 */
export async function loadSyntheticChunks(
  client: pg.Client,
  layout: SyntheticLayout,
  onProgress: (done: number) => void = () => {},
): Promise<number[]> {
  const { rows: projects } = await client.query<{ id: number }>(
    `insert into project (name, slug, city, created_at)
     select 'Bench Project ' || g, 'bench-' || g || '-' || extract(epoch from now())::bigint, 'Bench City', now()
       from generate_series(1, $1) g returning id`,
    [layout.projects],
  );
  const projectIds = projects.map((p) => p.id);
  const { rows: documents } = await client.query<{ id: number; project_id: number }>(
    `insert into document (project_id, name, category, content_hash, byte_size, content, created_at)
     select p, 'bench-' || p || '-' || k || '.pdf', ($3::text[])[1 + (k % array_length($3::text[], 1))],
            md5(p || '-' || k), 0, '\\x'::bytea, now()
       from unnest($1::int[]) p, generate_series(1, $2) k
     returning id, project_id`,
    [projectIds, layout.documentsPerProject, CATEGORIES],
  );
  const pages = Math.ceil(layout.chunksPerDocument / 2);
  const { rows: extractions } = await client.query<{ id: number; document_id: number }>(
    `insert into extraction (document_id, status, method, extractor_version, normalizer_version, page_count, raw_text_length, indexed_at, created_at)
     select d, 'completed', 'bench-synthetic', 'bench', 1, $2, 0, now(), now() from unnest($1::int[]) d
     returning id, document_id`,
    [documents.map((d) => d.id), pages],
  );
  await client.query(
    `update document d set current_extraction_id = e.id from extraction e
      where e.document_id = d.id and d.id = any($1::int[])`,
    [documents.map((d) => d.id)],
  );
  const projectOf = new Map(documents.map((d) => [d.id, d.project_id]));
  const owners = extractions
    .map((e) => ({ extractionId: e.id, documentId: e.document_id, projectId: projectOf.get(e.document_id)! }))
    .sort((a, b) => a.documentId - b.documentId);

  const { rows: indexes } = await client.query<{ indexname: string; indexdef: string }>(
    `select indexname, indexdef from pg_indexes where tablename = 'chunk' and indexname <> 'chunk_pkey'`,
  );
  for (const index of indexes) await client.query(`drop index ${index.indexname}`);

  const r = prng(20261122);
  let done = 0;
  async function* rows(): AsyncGenerator<string> {
    for (const owner of owners) {
      const lines: string[] = [];
      for (let i = 0; i < layout.chunksPerDocument && done < layout.chunks; i++, done++) {
        const raw = chunkText(r);
        const search = normalizeText(raw);
        const hash = createHash('sha256').update(search).digest('hex');
        lines.push(
          [
            owner.extractionId,
            owner.documentId,
            owner.projectId,
            i,
            1 + Math.floor(i / 2),
            raw,
            search,
            searchVectorLiteral(search),
            hash,
          ]
            .map(copyField)
            .join('\t'),
        );
      }
      if (lines.length) yield lines.join('\n') + '\n';
      if (done % 50_000 < layout.chunksPerDocument) onProgress(done);
      if (done >= layout.chunks) return;
    }
  }
  const copy = client.query(
    copyFrom(
      'copy chunk (extraction_id, document_id, project_id, chunk_index, page_number, raw_text, search_text, search_vector, text_hash) from stdin',
    ),
  );
  await pipeline(Readable.from(rows()), copy);
  await client.query(`set maintenance_work_mem = '1GB'`);
  for (const index of indexes) await client.query(index.indexdef);
  // Vacuumed as well as analyzed: a table a bulk load just filled is otherwise vacuumed by
  // autovacuum minutes later (its insert threshold), in the middle of the first term's rounds.
  await client.query('vacuum (analyze) chunk');
  await client.query('vacuum (analyze) document');
  return projectIds;
}

/**
 * The chunk table as it was before the exact pre-filter (the baseline "today's path" is measured
 * on): the same chunks with the token string PostgreSQL turned into a `tsvector` (`tokenForm`,
 * computed here in SQL: the synthetic text is ASCII, where `[^[:alnum:]]` is exactly WORD_CHAR's
 * complement) and its GIN index. A table of its own, so the new path's rows stay as narrow as in
 * production.
 */
export async function loadLegacyChunks(client: pg.Client): Promise<void> {
  await client.query(`create table legacy_chunk (
      id int primary key, extraction_id int not null, document_id int not null, project_id int not null,
      raw_text text not null, search_text text not null, search_tokens text not null,
      search_vector tsvector generated always as (to_tsvector('simple'::regconfig, search_tokens)) stored)`);
  await client.query(`insert into legacy_chunk (id, extraction_id, document_id, project_id, raw_text, search_text, search_tokens)
      select id, extraction_id, document_id, project_id, raw_text, search_text,
             btrim(regexp_replace(search_text, '[^[:alnum:]]+', ' ', 'g'))
        from chunk`);
  await client.query(`set maintenance_work_mem = '1GB'`);
  await client.query('create index legacy_chunk_search_vector_gin on legacy_chunk using gin (search_vector)');
  await client.query('create index legacy_chunk_project_id on legacy_chunk (project_id)');
  await client.query('vacuum (analyze) legacy_chunk');
}
