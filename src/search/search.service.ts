import type { EntityManager } from '@mikro-orm/postgresql';
import type { DocumentIntelligenceAccess } from '../auth/entitlements.js';
import type { Scope } from '../documents/scope.js';
import { badInput } from '../errors/catalogue.js';
import { PROJECTS_MENTIONING_LIMIT, SEARCH_LIMIT } from '../limits.js';
import { validateCategory, validateRange } from '../errors/validate.js';
import { excerptOf, postFilter, toChunkHit, type Hit } from './query/hits.js';
import { queryWords, termForms } from './query/query-forms.js';
import { readSnapshot } from './query/snapshot.js';
import {
  coverage,
  coverageOf,
  coverageSql,
  HIT_COLUMNS,
  HIT_JOINS,
  lexemeFrequencies,
  matchesSql,
  projectPath,
  type CoverageRow,
  type HitDetails,
} from './query/statements.js';
import { validateQuery } from './query/validate-query.js';
import type {
  FindProjectsMentioningView,
  ProjectMatchView,
  SearchCoverageView,
  SearchDocumentTextView,
} from './search.views.js';

/**
 * The entry point of search: the two Document Intelligence searches the resolver
 * (search.resolver.ts) calls. The two-stage search: stage one, the pre-filter, is the GIN-indexed
 * `tsvector` of each chunk of a document's current extraction, matched by the OR of every expanded
 * term's phrase query. Both are built by src/search/text/lexemes.ts so that the pre-filter accepts
 * exactly the chunks the strict post-filter (word-boundary containment in the normalized text)
 * accepts: counts, per-project tallies and ranking run in SQL over the matches, and only the shown
 * hits' text is read, where the post-filter finds the span for the excerpt.
 *
 * The query side (src/search/query/): the caller's words to every spelling (validate-query,
 * query-forms, synonyms, spellings, surface-forms), the statements (statements), the consistent
 * read under the search generations and the answer cache (snapshot, search-cache), and each shown
 * hit's match and excerpt (hits, match). The text side (src/search/text/): what is stored and
 * searched, the same rules for every chunk (normalize, lexemes, compounds, chunk) and its
 * re-derivation when they change (rederive).
 */

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
