import type { EntityManager } from '@mikro-orm/postgresql';
import type { DocumentIntelligenceAccess } from '../auth/entitlements.js';
import type { NativeQuery } from '../db/native.js';
import { scopeSql, type Scope } from '../documents/scope.js';
import { badInput } from '../errors/catalogue.js';
import { MAX_QUERY_LENGTH, PROJECTS_MENTIONING_LIMIT, SEARCH_LIMIT } from '../limits.js';
import { validateCategory, validateRange } from '../errors/validate.js';
import { searchQueryLiteral } from './lexemes.js';
import { buildExcerpt, findFirstMatch } from './match.js';
import { normalize } from './normalize.js';
import { searchSpellings, spellingCandidates } from './spellings.js';
import { surfaceForms } from './surface-forms.js';
import { expandQuery } from './synonyms.js';
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
 * term's phrase query. Both are built by src/search/lexemes.ts so that the pre-filter accepts
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

interface PoolClient {
  query: (sql: string, params?: unknown[]) => Promise<{ rows: unknown[] }>;
  release: (err?: Error) => void;
}

/**
 * Every spelling searched for a query's synonym variants (src/search/spellings.ts), with one
 * lookup of the index's vocabulary for the words the compound rule could use.
 */
async function withSpellings(query: NativeQuery, expanded: string[]): Promise<string[]> {
  const candidates = spellingCandidates(expanded);
  const known =
    candidates.length === 0
      ? []
      : await query<{ word: string }>('select word from search_vocabulary where word = any($1::text[])', [
          candidates,
        ]);
  return searchSpellings(expanded, new Set(known.map((r) => r.word)));
}

/**
 * Runs `work` on one connection (a read replica's when one is configured), in a read-only repeatable-read transaction (the count, the ranked
 * page and the hit details see one snapshot) with the statement deadline set for it alone.
 */
async function readSnapshot<T>(em: EntityManager, work: (query: NativeQuery) => Promise<T>): Promise<T> {
  const pool = (await em.getConnection('read').getNativeClient()) as { connect: () => Promise<PoolClient> };
  const client = await pool.connect();
  let failed: Error | undefined;
  try {
    await client.query(
      `begin isolation level repeatable read read only; set local statement_timeout = ${SEARCH_STATEMENT_TIMEOUT_MS}`,
    );
    const result = await work(
      async <R>(sql: string, params: unknown[]) => (await client.query(sql, params)).rows as R[],
    );
    await client.query('commit');
    return result;
  } catch (err) {
    failed = err as Error;
    await client.query('rollback').catch(() => undefined);
    if ((err as { code?: string }).code === '57014') {
      // The caller can act on it (a narrower term or scope); it is not the server's fault.
      throw badInput(
        'query',
        `took longer than ${SEARCH_STATEMENT_TIMEOUT_MS / 1000} s to search: use a more specific term or one project`,
      );
    }
    throw err;
  } finally {
    client.release(failed);
  }
}

async function coverage(
  query: NativeQuery,
  scope: Scope,
): Promise<Omit<SearchCoverageView, 'preFilterCandidates'>> {
  const where = scopeSql(scope, 1);
  const [row] = await query<{ total: number; with_text: number; no_text: number }>(
    `select count(*)::int as total,
            count(*) filter (where e.status = 'completed')::int as with_text,
            count(*) filter (where e.status in ('no_text', 'failed'))::int as no_text
       from document d left join extraction e on e.id = d.current_extraction_id
      where ${where.sql}`,
    where.params,
  );
  return {
    totalActiveDocuments: row?.total ?? 0,
    documentsWithText: row?.with_text ?? 0,
    documentsWithNoText: row?.no_text ?? 0,
  };
}

/**
 * The matching chunks of the current extractions in a scope, with their rank, as a SQL subquery
 * named `m`. The pre-filter is exact (src/search/lexemes.ts), so counting and grouping these rows
 * in SQL gives the same answer as post-filtering each one, without reading their text.
 *
 * PostgreSQL cannot estimate how many chunks a phrase matches (it multiplies its words'
 * frequencies: 4 estimated for 10,013 found), so the statement is shaped for it:
 * - One project: from its few documents to their chunks (the extraction and project indexes), each
 *   checked against the query; the whole-table search index would list every match everywhere.
 * - All projects: both sides of the join are fenced (`offset 0`), planned each on its own and
 *   joined by hashing. Unfenced, the planner chose plans fine for the 4 matches it expected and not
 *   for the ones there were: a lookup of each match's document (55 of 130 ms for a phrase in 1% of
 *   1M chunks), or at 4M chunks every document's chunks read through the extraction index (over
 *   10 s for a word in 18% of them).
 * The rank is computed once per match, below a fence: above it, the window or group between would
 * hold every match's vector (at 1M chunks a phrase in 5% of them spilled 8 MB to disk).
 */
function matchesSql(scope: Scope, tsquery: string): { sql: string; params: unknown[]; next: number } {
  const where = scopeSql(scope, 2);
  const params: unknown[] = [tsquery, ...where.params];
  // One project: `c.project_id = d.project_id` carries the project to the chunk's own index.
  const sql = scope.projectId
    ? `select c.id as chunk_id, c.chunk_index, c.document_id, c.project_id, d.category,
              ts_rank(c.search_vector, $1::tsquery) as rank
         from chunk c
         join document d on d.current_extraction_id = c.extraction_id and c.project_id = d.project_id
        where c.search_vector @@ $1::tsquery and ${where.sql}
       offset 0`
    : `select c.chunk_id, c.chunk_index, c.document_id, c.project_id, d.category, c.rank
         from (select c.id as chunk_id, c.chunk_index, c.document_id, c.project_id, c.extraction_id,
                      ts_rank(c.search_vector, $1::tsquery) as rank
                 from chunk c
                where c.search_vector @@ $1::tsquery
               offset 0) c
         join (select d.current_extraction_id, d.project_id, d.category
                 from document d
                where ${where.sql}
               offset 0) d on d.current_extraction_id = c.extraction_id and d.project_id = c.project_id`;
  return { sql, params, next: params.length + 1 };
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
  extraction_id: number;
  document_name: string;
  project_name: string;
}

interface Hit {
  details: HitDetails;
  term: string;
  start: number;
  end: number;
}

/**
 * Reads the shown hits' text, in the given order, and finds each one's first match with the
 * strict post-filter (for the excerpt and `matched_term`). The pre-filter agrees with it by
 * construction (a property test proves it); a chunk where they disagreed would be left out rather
 * than shown without a match.
 */
async function showHits(query: NativeQuery, chunkIds: number[], terms: string[]): Promise<Hit[]> {
  if (chunkIds.length === 0) return [];
  const rows = await query<HitDetails>(
    `select c.id as chunk_id, c.chunk_index, c.document_id, c.project_id, d.category, c.page_number,
            c.raw_text, c.search_text, c.text_hash, c.extraction_id,
            d.name as document_name, p.name as project_name
       from chunk c join document d on d.id = c.document_id join project p on p.id = c.project_id
      where c.id = any($1::int[])`,
    [chunkIds],
  );
  const byId = new Map(rows.map((r) => [r.chunk_id, r]));
  return chunkIds.flatMap((id) => {
    const details = byId.get(id);
    const found = details && findFirstMatch(details.search_text, terms);
    return details && found ? [{ details, term: found.term, start: found.start, end: found.end }] : [];
  });
}

function excerptOf(hit: Hit): string {
  const { offsets } = normalize(hit.details.raw_text);
  return buildExcerpt(hit.details.raw_text, offsets, hit.start, hit.end);
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
  const expanded = expandQuery(q).terms;
  return readSnapshot(em, async (query) => {
    const terms = await withSpellings(query, expanded);
    const tsquery = searchQueryLiteral(terms);
    const counts = await coverage(query, scope);
    let total = 0;
    let hits: Hit[] = [];
    if (tsquery !== null) {
      const m = matchesSql(scope, tsquery);
      // The window count is taken over every match before the limit: one pass, exact.
      const rows = await query<{ chunk_id: number; total: number }>(
        `select m.chunk_id, count(*) over ()::int as total from (${m.sql}) m
          order by m.rank desc, m.document_id, m.chunk_index limit $${m.next}`,
        [...m.params, limit],
      );
      total = rows[0]?.total ?? 0;
      hits = await showHits(
        query,
        rows.map((r) => r.chunk_id),
        terms,
      );
    }
    return {
      data: hits.map(toChunkHit),
      meta: {
        query: q,
        expandedTerms: surfaceForms(terms),
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
  },
): Promise<FindProjectsMentioningView> {
  const q = validateQuery(input.query);
  const category = validateCategory(input.category);
  const limit = validateRange('limit', input.limit, PROJECTS_MENTIONING_LIMIT);
  const scope: Scope = { category, historical: access.historical && !!input.includeHistorical };
  const expanded = expandQuery(q).terms;
  return readSnapshot(em, async (query) => {
    const terms = await withSpellings(query, expanded);
    const tsquery = searchQueryLiteral(terms);
    const counts = await coverage(query, scope);
    let total = 0;
    let candidates = 0;
    let data: ProjectMatchView[] = [];
    if (tsquery !== null) {
      const m = matchesSql(scope, tsquery);
      // Per-project tallies in SQL; a project's best hit is its first in the search's own order.
      const rows = await query<{
        project_id: number;
        match_count: number;
        categories: string[];
        best_chunk_id: number;
        total: number;
        chunks: string;
      }>(
        `select p.*, count(*) over ()::int as total, sum(p.match_count) over () as chunks
           from (select m.project_id, count(*)::int as match_count, sum(m.rank::float8) as rank,
                        array_agg(distinct m.category order by m.category) as categories,
                        -- the least of (-rank, document, chunk index, chunk): the project's first hit in
                        -- the search's own order, found without sorting the group (ids fit a float8 exactly)
                        (min(array[-m.rank::float8, m.document_id, m.chunk_index, m.chunk_id]))[4]::int as best_chunk_id
                   from (${m.sql}) m group by m.project_id) p
          order by p.match_count desc, p.rank desc, p.project_id limit $${m.next}`,
        [...m.params, limit],
      );
      total = rows[0]?.total ?? 0;
      candidates = Number(rows[0]?.chunks ?? 0);
      const hits = await showHits(
        query,
        rows.map((r) => r.best_chunk_id),
        terms,
      );
      const hitOf = new Map(hits.map((h) => [h.details.project_id, h]));
      data = rows.flatMap((r) => {
        const best = hitOf.get(r.project_id);
        if (!best) return [];
        return [
          {
            projectId: r.project_id,
            projectName: best.details.project_name,
            matchCount: r.match_count,
            categoriesMatched: r.categories,
            bestExcerpt: excerptOf(best),
          },
        ];
      });
    }
    return {
      data,
      meta: {
        query: q,
        expandedTerms: surfaceForms(terms),
        totalProjects: total,
        coverage: { ...counts, preFilterCandidates: candidates },
      },
    };
  });
}
