import type { EntityManager } from '@mikro-orm/postgresql';
import { createHash } from 'node:crypto';
import { escapeLiteral } from 'pg';
import type { DocumentIntelligenceAccess } from '../auth/entitlements.js';
import { scopeSql, type Scope } from '../documents/scope.js';
import { badInput } from '../errors/catalogue.js';
import { MAX_QUERY_LENGTH, PROJECTS_MENTIONING_LIMIT, SEARCH_LIMIT } from '../limits.js';
import { validateCategory, validateRange } from '../errors/validate.js';
import { queryWords, termForms, type QueryWords } from './query/query-forms.js';
import { keepAnswer, keptAnswer, knownSpellings, learnSpellings } from './query/search-cache.js';
import { onConnection, queryOn, statementTimeoutOf } from '../db/native.js';
import { GENERATION_COLUMNS, generationsFor, noteGenerations, type GenerationRow } from '../db/generation.js';
import { buildExcerpt, findFirstMatch } from './query/match.js';
import { rawOffsets } from './text/raw-offsets.js';
import { withCompounds } from './query/spellings.js';
import type {
  ChunkHitView,
  FindProjectsMentioningView,
  ProjectMatchView,
  SearchCoverageView,
  SearchDocumentTextView,
} from './search.views.js';

/**
 * The two-stage Document Intelligence search. Stage one, the pre-filter: the GIN-indexed
 * `tsvector` of each chunk of a document's current extraction, matched by the OR of every expanded
 * term's phrase query. Both are built by src/search/text/lexemes.ts so that the pre-filter accepts
 * exactly the chunks the strict post-filter (word-boundary containment in the normalized text)
 * accepts: counts, per-project tallies and ranking run in SQL over the matches, and only the shown
 * hits' text is read, where the post-filter finds the span for the excerpt.
 */

/** Quote pairs a model often wraps a phrase in; `30"` alone is an inch mark and is kept. */
const WRAPPING_QUOTES: Record<string, string> = {
  '"': '"',
  "'": "'",
  '\u201c': '\u201d',
  '\u2018': '\u2019',
  '\u00ab': '\u00bb',
};

function unwrapQuotes(q: string): string {
  const close = WRAPPING_QUOTES[q[0]];
  if (q.length >= 3 && close !== undefined && q.endsWith(close)) return q.slice(1, -1).trim();
  return q;
}

export function validateQuery(query: string): string {
  const q = unwrapQuotes(query.trim());
  if (!q) throw badInput('query', 'must not be empty');
  if (q.length > MAX_QUERY_LENGTH) throw badInput('query', `must be at most ${MAX_QUERY_LENGTH} characters`);
  return q;
}

/**
 * Every search statement runs under this deadline (PostgreSQL cancels it), so one expensive query
 * cannot hold a connection and a core for long. Exact answers on 1M chunks take well under a
 * second; this only bounds the pathological.
 */
export const SEARCH_STATEMENT_TIMEOUT_MS = 10_000;

/** A statement as node-postgres takes it: named ones are parsed and planned once per connection. */
type Statement = { name?: string; text: string; values: unknown[] };

interface PoolClient {
  query: (statement: string | Statement) => Promise<{ rows: unknown[] }>;
  release: (err?: Error) => void;
}

interface ReadPool {
  connect: () => Promise<PoolClient>;
  query: (statement: Statement) => Promise<{ rows: unknown[] }>;
}

/**
 * A search's statement runner. `prepared` names the statement (by its text), so each connection
 * parses it once and PostgreSQL may keep one generic plan for it: for statements whose plan does
 * not depend on the parameters' values (the fenced project-scoped shapes of matchesSql). Planning
 * took most of a project-scoped search's server time.
 */
type SearchQuery = <T>(sql: string, params: unknown[], prepared?: boolean) => Promise<T[]>;

const statementNames = new Map<string, string>();

function statement(text: string, values: unknown[], prepared = false): Statement {
  if (!prepared) return { text, values };
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `pds_search_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
    // The shapes are few (scope and path); the bound only guards against a future caller's variety.
    if (statementNames.size >= 256) statementNames.clear();
    statementNames.set(text, name);
  }
  return { name, text, values };
}

/**
 * A search's own reads: `query` runs its statements, `terms` are every spelling to search, `pool`
 * is the pool they run on, and `snapshot` is a select-list tail (empty, or `, <generation
 * columns>`) that the search's one corpus statement adds to its select list, so that the
 * generations it read come back with its rows.
 */
type SearchWork<T> = (
  query: SearchQuery,
  terms: readonly string[],
  pool: object,
  snapshot: string,
) => Promise<T>;

/** A statement cancelled by its deadline: the caller can act on it (a narrower term or scope). */
function deadlineError(err: unknown): unknown {
  if ((err as { code?: string }).code !== '57014') return err;
  return badInput(
    'query',
    `took longer than ${SEARCH_STATEMENT_TIMEOUT_MS / 1000} s to search: use a more specific term or one project`,
  );
}

/**
 * Runs a search, exactly, in the cheapest way that stays exact:
 * - no round trip when its answer was kept under the request's own generations (read once per
 *   request after it arrived: src/search/query/search-cache.ts);
 * - one statement when the vocabulary's answer for its compound spellings is known at the
 *   request's search generation and the connection's own deadline (DB_STATEMENT_TIMEOUT_MS, the
 *   requests' pool's `statement_timeout`: src/db/orm.ts) is the search's: the statement reads the
 *   generations with its rows, and its answer stands only if they show the same vocabulary;
 * - otherwise (and when that check fails) three round trips in a read-only repeatable-read
 *   transaction (inTransaction).
 */
async function readSnapshot<T>(
  em: EntityManager,
  words: QueryWords,
  key: string,
  work: SearchWork<T>,
): Promise<T> {
  const primary = await em.getConnection('write').getNativeClient();
  const requested = await generationsFor(em);
  const kept = keptAnswer(primary, requested, key) as T | undefined;
  if (kept !== undefined) return kept;
  const pool = (await em.getConnection('read').getNativeClient()) as ReadPool;
  const known = knownSpellings(primary, requested.search, words.candidates);
  if (known && statementTimeoutOf(pool) === SEARCH_STATEMENT_TIMEOUT_MS) {
    const terms = withCompounds(words.plain, known);
    const answer = await oneStatement(em, primary, pool, key, requested.search, terms, work);
    if (answer) return answer.value;
  }
  return inTransaction(em, primary, pool, words, key, work);
}

/**
 * The search as one statement on `pool` (no transaction: one statement is one snapshot), under the
 * connection's own deadline. Its answer is returned and kept when the snapshot's search
 * generation is `vocabularyGeneration`, the one the spellings were learned at; otherwise undefined,
 * and the caller searches again in a transaction.
 */
async function oneStatement<T>(
  em: EntityManager,
  primary: object,
  pool: ReadPool,
  key: string,
  vocabularyGeneration: string,
  terms: readonly string[],
  work: SearchWork<T>,
): Promise<{ value: T } | undefined> {
  let snapshot: GenerationRow | undefined;
  const query: SearchQuery = async <R>(sql: string, params: unknown[], prepared?: boolean) => {
    const { rows } = await queryOn(pool, statement(sql, params, prepared));
    const first = rows[0] as Partial<GenerationRow> | undefined;
    if (first?.search_generation !== undefined) snapshot = first as GenerationRow;
    return rows as R[];
  };
  let value: T;
  try {
    value = await work(query, terms, pool, `, ${GENERATION_COLUMNS}`);
  } catch (err) {
    throw deadlineError(err);
  }
  if (!snapshot) return undefined;
  const generation = await noteGenerations(em, snapshot);
  if (generation.search !== vocabularyGeneration) return undefined;
  keepAnswer(primary, generation, key, value);
  return { value };
}

/**
 * The search on one connection of `pool` (a read replica's when one is configured), in a read-only
 * repeatable-read transaction with the statement deadline set for it alone. The transaction's first
 * round trip also reads the search generations and looks the query's compound candidates up in the
 * index's vocabulary (one simple-protocol message: `begin`, `set local`, the two reads, the words as
 * escaped literals), so `work` gets every spelling to search (src/search/query/spellings.ts) and what the
 * vocabulary said is remembered for later searches at that generation: three round trips, this,
 * its one statement, `commit`; two when an answer was kept under the snapshot's generations.
 */
async function inTransaction<T>(
  em: EntityManager,
  primary: object,
  pool: ReadPool,
  { plain, candidates }: QueryWords,
  key: string,
  work: SearchWork<T>,
): Promise<T> {
  try {
    return await onConnection(pool, async (client) => {
      const opened = (await client.query(
        `begin isolation level repeatable read read only; set local statement_timeout = ${SEARCH_STATEMENT_TIMEOUT_MS}; select ${GENERATION_COLUMNS}` +
          (candidates.length === 0
            ? ''
            : `; select word from search_vocabulary where word = any(array[${candidates.map(escapeLiteral).join(', ')}]::text[])`),
      )) as unknown as { rows: unknown[] }[];
      const generation = await noteGenerations(em, opened[2].rows[0] as GenerationRow);
      const known = new Set(
        candidates.length === 0 ? [] : (opened[3].rows as { word: string }[]).map((r) => r.word),
      );
      learnSpellings(primary, generation.search, candidates, known);
      // Kept since the request read its generations (a commit in between), or under a replica's.
      let result = keptAnswer(primary, generation, key) as T | undefined;
      if (result === undefined) {
        result = await work(
          async <R>(sql: string, params: unknown[], prepared?: boolean) =>
            (await client.query(statement(sql, params, prepared))).rows as R[],
          withCompounds(plain, known),
          pool,
          '',
        );
        keepAnswer(primary, generation, key, result);
      }
      await client.query('commit');
      return result;
    });
  } catch (err) {
    throw deadlineError(err);
  }
}

interface CoverageRow {
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
function coverageSql(where: { sql: string }): string {
  return `select count(*)::int as cov_total,
                 count(*) filter (where e.status = 'completed')::int as cov_with_text,
                 count(*) filter (where e.status in ('no_text', 'failed'))::int as cov_no_text
            from document d left join extraction e on e.id = d.current_extraction_id
           where ${where.sql}`;
}

function coverageOf(row: CoverageRow | undefined): Omit<SearchCoverageView, 'preFilterCandidates'> {
  return {
    totalActiveDocuments: row?.cov_total ?? 0,
    documentsWithText: row?.cov_with_text ?? 0,
    documentsWithNoText: row?.cov_no_text ?? 0,
  };
}

/** The coverage alone, for a query with no searchable word. */
async function coverage(
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
function matchesSql(
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
function lexemeFrequencies(pool: object, query: SearchQuery): Promise<ReadonlyMap<string, number> | null> {
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
interface HitDetails {
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
const HIT_COLUMNS = `c.id as chunk_id, c.chunk_index, c.document_id, c.project_id, d.category, c.page_number,
  c.raw_text, c.search_text, c.text_hash, c.ocr_confidence, c.extraction_id, d.name as document_name, p.name as project_name`;

/** The shown hit's joins, `c` being chunk `<id>`. */
const HIT_JOINS = (id: string) =>
  `join chunk c on c.id = ${id} join document d on d.id = c.document_id join project p on p.id = c.project_id`;

interface Hit {
  details: HitDetails;
  term: string;
  start: number;
  end: number;
}

/**
 * A shown hit's first match, found with the strict post-filter (for the excerpt and
 * `matched_term`). The pre-filter agrees with it by construction (a property test proves it); a
 * chunk where they disagreed would be left out rather than shown without a match.
 */
function postFilter(details: HitDetails, terms: readonly string[]): Hit | null {
  const found = findFirstMatch(details.search_text, terms);
  return found ? { details, term: found.term, start: found.start, end: found.end } : null;
}

function excerptOf(hit: Hit): string {
  return buildExcerpt(hit.details.raw_text, rawOffsets(hit.details.raw_text), hit.start, hit.end);
}

function toChunkHit(hit: Hit): ChunkHitView {
  const d = hit.details;
  return {
    chunkId: d.chunk_id,
    projectId: d.project_id,
    projectName: d.project_name,
    documentId: d.document_id,
    documentName: d.document_name,
    category: d.category,
    pageNumber: d.page_number,
    excerpt: excerptOf(hit),
    matchedTerm: hit.term,
    extractionId: d.extraction_id,
    stableCitation: { documentId: d.document_id, pageNumber: d.page_number, textHash: d.text_hash },
    ocrConfidence: d.ocr_confidence,
  };
}

export async function searchDocumentText(
  em: EntityManager,
  access: DocumentIntelligenceAccess,
  input: {
    query: string;
    projectId?: number | null;
    category?: string | null;
    includeHistorical?: boolean | null;
    limit?: number | null;
    /** Hits to skip in the search's order (a cursor's position). */
    offset?: number;
  },
): Promise<SearchDocumentTextView> {
  const q = validateQuery(input.query);
  const category = validateCategory(input.category);
  const limit = validateRange('limit', input.limit, SEARCH_LIMIT);
  if (input.projectId !== null && input.projectId !== undefined && !(input.projectId > 0)) {
    throw badInput('projectId', 'must be a positive integer');
  }
  const scope: Scope = {
    projectId: input.projectId,
    category,
    historical: access.historical && !!input.includeHistorical,
  };
  const offset = input.offset ?? 0;
  const key = JSON.stringify([
    'search',
    q,
    scope.projectId ?? null,
    category ?? null,
    scope.historical,
    limit,
    offset,
  ]);
  return readSnapshot(em, queryWords(q), key, async (query, terms, pool, snapshot) => {
    const { tsquery, lexemes, surface } = termForms(terms);
    let counts: Omit<SearchCoverageView, 'preFilterCandidates'>;
    let total = 0;
    const hits: Hit[] = [];
    if (tsquery === null) {
      counts = await coverage(query, scope, snapshot);
    } else {
      const viaIndex =
        !!scope.projectId && projectPath(lexemes, await lexemeFrequencies(pool, query)) === 'index';
      const m = matchesSql(scope, tsquery, viaIndex);
      // One statement: the coverage, the match count (a window over every match before the limit:
      // one pass, exact) and the shown page with its hits' details, in the search's order.
      const rows = await query<CoverageRow & Partial<HitDetails> & { total: number | null }>(
        `with page as (
           select m.chunk_id, m.rank, m.document_id, m.chunk_index, count(*) over ()::int as total
             from (${m.sql}) m
            order by m.rank desc, m.document_id, m.chunk_index, m.chunk_id limit $${m.next} offset $${m.next + 1})
         select cov.*, page.total, ${HIT_COLUMNS}${snapshot}
           from (${coverageSql(m.where)}) cov
           left join (page ${HIT_JOINS('page.chunk_id')}) on true
          order by page.rank desc, page.document_id, page.chunk_index, page.chunk_id`,
        [...m.params, limit, offset],
        !!scope.projectId,
      );
      counts = coverageOf(rows[0]);
      total = rows[0]?.total ?? 0;
      for (const row of rows) {
        const hit = row.total === null ? null : postFilter(row as HitDetails, terms);
        if (hit) hits.push(hit);
      }
    }
    return {
      data: hits.map(toChunkHit),
      meta: {
        query: q,
        expandedTerms: surface,
        totalChunksMatched: total,
        coverage: { ...counts, preFilterCandidates: total },
      },
    };
  });
}

export async function findProjectsMentioning(
  em: EntityManager,
  access: DocumentIntelligenceAccess,
  input: {
    query: string;
    category?: string | null;
    includeHistorical?: boolean | null;
    limit?: number | null;
    /** Projects to skip in the ranking (a cursor's position). */
    offset?: number;
  },
): Promise<FindProjectsMentioningView> {
  const q = validateQuery(input.query);
  const category = validateCategory(input.category);
  const limit = validateRange('limit', input.limit, PROJECTS_MENTIONING_LIMIT);
  const scope: Scope = { category, historical: access.historical && !!input.includeHistorical };
  const offset = input.offset ?? 0;
  const key = JSON.stringify(['find', q, category ?? null, scope.historical, limit, offset]);
  return readSnapshot(em, queryWords(q), key, async (query, terms, _pool, snapshot) => {
    const { tsquery, surface } = termForms(terms);
    let counts: Omit<SearchCoverageView, 'preFilterCandidates'>;
    let total = 0;
    let candidates = 0;
    const data: ProjectMatchView[] = [];
    if (tsquery === null) {
      counts = await coverage(query, scope, snapshot);
    } else {
      const m = matchesSql(scope, tsquery);
      // One statement: the coverage, per-project tallies (a project's best hit is its first in the
      // search's own order) and the shown projects' best hits with their details.
      const rows = await query<
        CoverageRow &
          Partial<HitDetails> & {
            total: number | null;
            chunks: string | null;
            match_count: number;
            categories: string[];
          }
      >(
        `with page as (
           select g.*, count(*) over ()::int as total, sum(g.match_count) over () as chunks
             from (select m.project_id, count(*)::int as match_count, sum(m.rank::float8) as rank,
                          array_agg(distinct m.category order by m.category) as categories,
                          -- the least of (-rank, document, chunk index, chunk): the project's first hit in
                          -- the search's own order, found without sorting the group (ids fit a float8 exactly)
                          (min(array[-m.rank::float8, m.document_id, m.chunk_index, m.chunk_id]))[4]::int as best_chunk_id
                     from (${m.sql}) m group by m.project_id) g
            order by g.match_count desc, g.rank desc, g.project_id limit $${m.next} offset $${m.next + 1})
         select cov.*, page.total, page.chunks, page.match_count, page.categories, ${HIT_COLUMNS}${snapshot}
           from (${coverageSql(m.where)}) cov
           left join (page ${HIT_JOINS('page.best_chunk_id')}) on true
          order by page.match_count desc, page.rank desc, page.project_id`,
        [...m.params, limit, offset],
        !!scope.projectId,
      );
      counts = coverageOf(rows[0]);
      total = rows[0]?.total ?? 0;
      candidates = Number(rows[0]?.chunks ?? 0);
      for (const row of rows) {
        const best = row.total === null ? null : postFilter(row as HitDetails, terms);
        if (!best) continue;
        data.push({
          projectId: best.details.project_id,
          projectName: best.details.project_name,
          matchCount: row.match_count,
          categoriesMatched: row.categories,
          bestExcerpt: excerptOf(best),
        });
      }
    }
    return {
      data,
      meta: {
        query: q,
        expandedTerms: surface,
        totalProjects: total,
        coverage: { ...counts, preFilterCandidates: candidates },
      },
    };
  });
}
