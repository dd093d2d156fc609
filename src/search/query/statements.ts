import { scopeSql, type Scope } from '../../documents/scope.js';
import type { SearchCoverageView } from '../search.views.js';
import type { SearchQuery } from './snapshot.js';

export interface CoverageRow {
  cov_total: number;
  cov_with_text: number;
  cov_no_text: number;
}

/**
 * The scope's documents by extraction outcome, as columns of the search's own statement. An
 * extraction's status counts only by these three classes: a change of status within one class
 * bumps no `search` generation (Migration20261126180000SearchCoverageTrigger), so a new class here
 * needs that trigger changed too.
 */
export function coverageSql(where: { sql: string }): string {
  return `select count(*)::int as cov_total,
                 count(*) filter (where e.status = 'completed')::int as cov_with_text,
                 count(*) filter (where e.status in ('no_text', 'failed'))::int as cov_no_text
            from document d left join extraction e on e.id = d.current_extraction_id
           where ${where.sql}`;
}

export function coverageOf(row: CoverageRow | undefined): Omit<SearchCoverageView, 'preFilterCandidates'> {
  return {
    totalActiveDocuments: row?.cov_total ?? 0,
    documentsWithText: row?.cov_with_text ?? 0,
    documentsWithNoText: row?.cov_no_text ?? 0,
  };
}

/** The coverage alone, for a query with no searchable word. */
export async function coverage(
  query: SearchQuery,
  scope: Scope,
  snapshot: string,
): Promise<Omit<SearchCoverageView, 'preFilterCandidates'>> {
  const where = scopeSql(scope, 1);
  const [row] = await query<CoverageRow>(
    `select cov.*${snapshot} from (${coverageSql(where)}) cov`,
    where.params,
  );
  return coverageOf(row);
}

/**
 * The matching chunks of the current extractions in a scope, with their rank, as a SQL subquery
 * named `m`. The pre-filter is exact (src/search/text/lexemes.ts), so counting and grouping these rows
 * in SQL gives the same answer as post-filtering each one, without reading their text.
 *
 * PostgreSQL cannot estimate how many chunks a phrase matches (it multiplies its words'
 * frequencies: 4 estimated for 10,013 found), so the statement is shaped for it:
 * - One project: from its few documents to their chunks (the extraction and project indexes), each
 *   checked against the query; the whole-table search index would list every match everywhere.
 * - All projects: both sides of the join are fenced (`offset 0`), planned each on its own and
 *   joined by hashing. Unfenced, the planner chose plans fine for the 4 matches it expected and not
 *   for the ones there were: a lookup of each match's document (most of the time of a phrase in 1% of
 *   1M chunks), or at 4M chunks every document's chunks read through the extraction index
 *   (seconds for a word in 18% of them).
 * The rank is computed once per match, below a fence: above it, the window or group between would
 * hold every match's vector (at 1M chunks a phrase in 5% of them spilled 8 MB to disk).
 */
export function matchesSql(
  scope: Scope,
  tsquery: string,
  viaIndex = false,
): { sql: string; params: unknown[]; next: number; where: { sql: string } } {
  const where = scopeSql(scope, 2);
  const params: unknown[] = [tsquery, ...where.params];
  let sql: string;
  if (scope.projectId && viaIndex) {
    // One project, rare words (projectPath): the search index's few entries for them, and the
    // project's index, intersected ($2 is the project: scopeSql puts it first).
    sql = `select c.chunk_id, c.chunk_index, c.document_id, c.project_id, d.category, c.rank
             from (select c.id as chunk_id, c.chunk_index, c.document_id, c.project_id, c.extraction_id,
                          ts_rank(c.search_vector, $1::tsquery) as rank
                     from chunk c
                    where c.search_vector @@ $1::tsquery and c.project_id = $2
                   offset 0) c
             join document d on d.current_extraction_id = c.extraction_id and d.project_id = c.project_id
            where ${where.sql}`;
  } else if (scope.projectId) {
    // One project: `c.project_id = d.project_id` carries the project to the chunk's own index. The
    // project's chunks are fenced before the match, so no plan can start from the search index: a
    // prepared statement's generic plan (statement()) knows no word's frequency and would.
    sql = `select c.chunk_id, c.chunk_index, c.document_id, c.project_id, c.category,
                  ts_rank(c.search_vector, $1::tsquery) as rank
             from (select c.id as chunk_id, c.chunk_index, c.document_id, c.project_id, d.category, c.search_vector
                     from chunk c
                     join document d on d.current_extraction_id = c.extraction_id and c.project_id = d.project_id
                    where ${where.sql}
                   offset 0) c
            where c.search_vector @@ $1::tsquery
           offset 0`;
  } else {
    sql = `select c.chunk_id, c.chunk_index, c.document_id, c.project_id, d.category, c.rank
             from (select c.id as chunk_id, c.chunk_index, c.document_id, c.project_id, c.extraction_id,
                          ts_rank(c.search_vector, $1::tsquery) as rank
                     from chunk c
                    where c.search_vector @@ $1::tsquery
                   offset 0) c
             join (select d.current_extraction_id, d.project_id, d.category
                     from document d
                    where ${where.sql}
                   offset 0) d on d.current_extraction_id = c.extraction_id and d.project_id = c.project_id`;
  }
  return { sql, params, next: params.length + 1, where };
}

/**
 * The share of chunks below which the words of a project-scoped search count as rare: see
 * projectPath.
 */
export const RARE_SHARE = 0.01;

/**
 * Whether a project-scoped search should start from the search index rather than from the
 * project's chunks: only when PostgreSQL's statistics for `chunk.search_vector` (`frequencies`,
 * the share of chunks each of its most common lexemes is in, from ANALYZE) put all of the query's
 * lexemes together in under RARE_SHARE of the chunks. A lexeme they do not list is rarer than any
 * they do, and counts as 0. Then the index lists few chunks and intersecting them with the
 * project's is cheap (at 1M chunks, a phrase in 0.01% of them: several times cheaper than
 * checking the project's 500 chunks); common words make the index list tens of thousands of
 * chunks, and the project's own chunks are cheaper, as they are when there are no statistics
 * (never analyzed). PostgreSQL cannot choose this itself: it multiplies a phrase's word
 * frequencies and expects 3 chunks for 10,013.
 */
export function projectPath(
  lexemes: readonly string[],
  frequencies: ReadonlyMap<string, number> | null,
): 'index' | 'chunks' {
  if (frequencies === null || lexemes.length === 0) return 'chunks';
  const share = [...new Set(lexemes)].reduce((sum, l) => sum + (frequencies.get(l) ?? 0), 0);
  return share < RARE_SHARE ? 'index' : 'chunks';
}

/** How long the statistics' lexeme frequencies are kept before they are read again. */
const FREQUENCIES_TTL_MS = 60_000;
const frequenciesCache = new WeakMap<
  object,
  { at: number; frequencies: Promise<ReadonlyMap<string, number> | null> }
>();

/** Forgets the statistics read so far (after an ANALYZE, for a caller that cannot wait a minute). */
export function forgetLexemeFrequencies(pool: object): void {
  frequenciesCache.delete(pool);
}

/**
 * The share of chunks each of the most common lexemes of `chunk.search_vector` is in (its
 * most_common_elems and their frequencies, from ANALYZE), or null when the column has no
 * statistics; read at most once a minute per pool (they change only when the table is analyzed).
 */
export function lexemeFrequencies(
  pool: object,
  query: SearchQuery,
): Promise<ReadonlyMap<string, number> | null> {
  const cached = frequenciesCache.get(pool);
  if (cached && Date.now() - cached.at < FREQUENCIES_TTL_MS) return cached.frequencies;
  const frequencies = query<{ elems: string[] | null; freqs: number[] | null }>(
    `select most_common_elems::text::text[] as elems, most_common_elem_freqs as freqs from pg_stats
      where schemaname = current_schema() and tablename = 'chunk' and attname = 'search_vector'`,
    [],
  ).then(([row]) =>
    row?.elems && row.freqs ? new Map(row.elems.map((elem, i) => [elem, Number(row.freqs![i])])) : null,
  );
  frequenciesCache.set(pool, { at: Date.now(), frequencies });
  frequencies.catch(() => frequenciesCache.delete(pool));
  return frequencies;
}

/** What a shown hit needs: its texts (for the post-filter's span and the excerpt) and labels. */
export interface HitDetails {
  chunk_id: number;
  chunk_index: number;
  document_id: number;
  project_id: number;
  category: string;
  page_number: number;
  raw_text: string;
  search_text: string;
  text_hash: string;
  ocr_confidence: number | null;
  extraction_id: number;
  document_name: string;
  project_name: string;
}

/** The columns of HitDetails, from `c` (chunk), `d` (its document) and `p` (its project). */
export const HIT_COLUMNS = `c.id as chunk_id, c.chunk_index, c.document_id, c.project_id, d.category, c.page_number,
  c.raw_text, c.search_text, c.text_hash, c.ocr_confidence, c.extraction_id, d.name as document_name, p.name as project_name`;

/** The shown hit's joins, `c` being chunk `<id>`. */
export const HIT_JOINS = (id: string) =>
  `join chunk c on c.id = ${id} join document d on d.id = c.document_id join project p on p.id = c.project_id`;
