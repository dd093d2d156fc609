import type { EntityManager } from '@mikro-orm/postgresql';
import type { DocumentIntelligenceAccess } from '../auth/entitlements.js';
import { CATEGORIES, type Category } from '../entities/enums.js';
import { AppError, badInput } from '../errors/catalogue.js';
import { buildExcerpt, buildPrefilterTsquerySql, findFirstMatch } from './match.js';
import { normalize } from './normalize.js';
import { expandQuery } from './synonyms.js';
import type {
  ChunkHit,
  ContextChunk,
  DocumentContextResult,
  FindProjectsMentioningResult,
  ProjectDocumentsResult,
  ProjectMatch,
  SearchCoverage,
  SearchDocumentTextResult,
} from './search.types.js';

/**
 * The two-stage Document Intelligence search. Stage one, the pre-filter: the GIN-indexed
 * `tsvector` of each chunk of a document's current extraction, matched by the OR of
 * `phraseto_tsquery` over every expanded term. Stage two, the post-filter: strict word-boundary
 * containment of a term in the chunk's normalized text, which drops phantom matches (a phrase
 * query matches tokens, not the punctuation and order rules of the text). Every post-filter hit is
 * a pre-filter candidate by construction (tested as a property).
 */

export interface Scope {
  projectId?: number | null;
  category?: Category | null;
  /** Include older revisions: only when the plan allows it and the caller asked. */
  historical: boolean;
}

const MAX_QUERY_LENGTH = 200;

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

export function validateCategory(category: string | null | undefined): Category | null {
  if (category === null || category === undefined) return null;
  if (!(CATEGORIES as readonly string[]).includes(category)) {
    throw badInput('category', `must be one of: ${CATEGORIES.join(', ')}`);
  }
  return category as Category;
}

export function validateRange(
  field: string,
  value: number | null | undefined,
  min: number,
  max: number,
  fallback: number,
): number {
  if (value === null || value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max)
    throw badInput(field, `must be an integer from ${min} to ${max}`);
  return value;
}

/** SQL predicate on `d` (document) for a scope, with its parameters from `$first`. */
function scopeSql(scope: Scope, first: number): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (scope.projectId) {
    params.push(scope.projectId);
    parts.push(`d.project_id = $${first + params.length - 1}`);
  }
  if (scope.category) {
    params.push(scope.category);
    parts.push(`d.category = $${first + params.length - 1}`);
  }
  if (!scope.historical) parts.push('d.is_latest');
  return { sql: parts.length ? parts.join(' and ') : 'true', params };
}

type Query = <T>(sql: string, params: unknown[]) => Promise<T[]>;

async function nativeQuery(em: EntityManager): Promise<Query> {
  const pool = (await em.getConnection().getNativeClient()) as {
    query: (sql: string, params: unknown[]) => Promise<{ rows: unknown[] }>;
  };
  return async <T>(sql: string, params: unknown[]) => (await pool.query(sql, params)).rows as T[];
}

async function coverage(query: Query, scope: Scope): Promise<Omit<SearchCoverage, 'preFilterCandidates'>> {
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

/** What the pre-filter returns per candidate: enough to post-filter, rank and group, no more. */
interface Candidate {
  chunk_id: number;
  chunk_index: number;
  document_id: number;
  project_id: number;
  category: string;
  search_text: string;
  rank: number;
}

interface Hit {
  candidate: Candidate;
  term: string;
  start: number;
  end: number;
}

/** What a hit shows: read for the returned hits only, not for every candidate. */
interface HitDetails {
  chunk_id: number;
  page_number: number;
  raw_text: string;
  text_hash: string;
  extraction_id: number;
  document_name: string;
  project_name: string;
}

async function twoStage(
  query: Query,
  terms: string[],
  scope: Scope,
): Promise<{ hits: Hit[]; candidates: number }> {
  const where = scopeSql(scope, 1);
  const tsq = buildPrefilterTsquerySql(terms, where.params.length + 1);
  if (tsq.params.length === 0) return { hits: [], candidates: 0 };
  // `c.project_id = d.project_id` lets the planner carry a project scope to the chunk's own index.
  const rows = await query<Candidate>(
    `select c.id as chunk_id, c.chunk_index, c.document_id, c.project_id, d.category, c.search_text,
            ts_rank(c.search_vector, q.tsq) as rank
       from (select ${tsq.sql} as tsq) q
       join chunk c on c.search_vector @@ q.tsq
       join document d on d.current_extraction_id = c.extraction_id and c.project_id = d.project_id
      where ${where.sql}`,
    [...where.params, ...tsq.params],
  );
  const hits: Hit[] = [];
  for (const candidate of rows) {
    const m = findFirstMatch(candidate.search_text, terms);
    if (m) hits.push({ candidate, term: m.term, start: m.start, end: m.end });
  }
  hits.sort(
    (a, b) =>
      b.candidate.rank - a.candidate.rank ||
      a.candidate.document_id - b.candidate.document_id ||
      a.candidate.chunk_index - b.candidate.chunk_index,
  );
  return { hits, candidates: rows.length };
}

async function hitDetails(query: Query, hits: Hit[]): Promise<Map<number, HitDetails>> {
  if (hits.length === 0) return new Map();
  const rows = await query<HitDetails>(
    `select c.id as chunk_id, c.page_number, c.raw_text, c.text_hash, c.extraction_id,
            d.name as document_name, p.name as project_name
       from chunk c join document d on d.id = c.document_id join project p on p.id = c.project_id
      where c.id = any($1::int[])`,
    [hits.map((h) => h.candidate.chunk_id)],
  );
  return new Map(rows.map((r) => [r.chunk_id, r]));
}

function excerptOf(hit: Hit, details: HitDetails): string {
  const { offsets } = normalize(details.raw_text);
  return buildExcerpt(details.raw_text, offsets, hit.start, hit.end);
}

function toChunkHit(hit: Hit, details: HitDetails): ChunkHit {
  const c = hit.candidate;
  return {
    chunkId: c.chunk_id,
    projectId: c.project_id,
    projectName: details.project_name,
    documentId: c.document_id,
    documentName: details.document_name,
    category: c.category,
    pageNumber: details.page_number,
    excerpt: excerptOf(hit, details),
    matchedTerm: hit.term,
    extractionId: details.extraction_id,
    stableCitation: {
      documentId: c.document_id,
      pageNumber: details.page_number,
      textHash: details.text_hash,
    },
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
): Promise<SearchDocumentTextResult> {
  const q = validateQuery(input.query);
  const category = validateCategory(input.category);
  const limit = validateRange('limit', input.limit, 1, 25, 10);
  if (input.projectId !== null && input.projectId !== undefined && !(input.projectId > 0)) {
    throw badInput('project_id', 'must be a positive integer');
  }
  const scope: Scope = {
    projectId: input.projectId,
    category,
    historical: access.historical && !!input.includeHistorical,
  };
  const { terms } = expandQuery(q);
  const query = await nativeQuery(em);
  // The coverage counts do not depend on the matches: both reads run at once.
  const [{ hits, candidates }, counts] = await Promise.all([
    twoStage(query, terms, scope),
    coverage(query, scope),
  ]);
  const shown = hits.slice(0, limit);
  const details = await hitDetails(query, shown);
  return {
    // A chunk removed between the two reads (a re-index switched) is left out, never half-shown.
    data: shown.flatMap((h) => {
      const d = details.get(h.candidate.chunk_id);
      return d ? [toChunkHit(h, d)] : [];
    }),
    meta: {
      query: q,
      expandedTerms: terms,
      totalChunksMatched: hits.length,
      coverage: { ...counts, preFilterCandidates: candidates },
    },
  };
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
): Promise<FindProjectsMentioningResult> {
  const q = validateQuery(input.query);
  const category = validateCategory(input.category);
  const limit = validateRange('limit', input.limit, 1, 50, 25);
  const scope: Scope = { category, historical: access.historical && !!input.includeHistorical };
  const { terms } = expandQuery(q);
  const query = await nativeQuery(em);
  // The coverage counts do not depend on the matches: both reads run at once.
  const [{ hits, candidates }, counts] = await Promise.all([
    twoStage(query, terms, scope),
    coverage(query, scope),
  ]);
  const byProject = new Map<number, { hits: Hit[]; rank: number; categories: Set<string> }>();
  for (const hit of hits) {
    const entry = byProject.get(hit.candidate.project_id) ?? {
      hits: [],
      rank: 0,
      categories: new Set(),
    };
    entry.hits.push(hit);
    entry.rank += hit.candidate.rank;
    entry.categories.add(hit.candidate.category);
    byProject.set(hit.candidate.project_id, entry);
  }
  const ranked = [...byProject.values()].sort(
    (a, b) =>
      b.hits.length - a.hits.length ||
      b.rank - a.rank ||
      a.hits[0].candidate.project_id - b.hits[0].candidate.project_id,
  );
  const shown = ranked.slice(0, limit);
  const details = await hitDetails(
    query,
    shown.map((e) => e.hits[0]),
  );
  const data: ProjectMatch[] = shown.flatMap((e) => {
    const best = e.hits[0];
    const d = details.get(best.candidate.chunk_id);
    if (!d) return [];
    return [
      {
        projectId: best.candidate.project_id,
        projectName: d.project_name,
        matchCount: e.hits.length,
        categoriesMatched: [...e.categories].sort(),
        bestExcerpt: excerptOf(best, d),
      },
    ];
  });
  return {
    data,
    meta: {
      query: q,
      expandedTerms: terms,
      totalProjects: ranked.length,
      coverage: { ...counts, preFilterCandidates: candidates },
    },
  };
}

export async function projectDocuments(
  em: EntityManager,
  access: DocumentIntelligenceAccess,
  input: { projectId: number; category?: string | null; includeHistorical?: boolean | null },
): Promise<ProjectDocumentsResult> {
  if (!Number.isInteger(input.projectId) || input.projectId <= 0)
    throw badInput('project_id', 'must be a positive integer');
  const category = validateCategory(input.category);
  const historical = access.historical && !!input.includeHistorical;
  const query = await nativeQuery(em);
  const [project] = await query<{ id: number }>('select id from project where id = $1', [input.projectId]);
  if (!project)
    throw new AppError(
      'NOT_FOUND',
      `project ${input.projectId} not found: use list-projects to find project ids`,
    );
  const where = scopeSql({ projectId: input.projectId, category, historical }, 1);
  const rows = await query<{
    id: number;
    name: string;
    category: string;
    type: string | null;
    status: string | null;
    method: string | null;
    page_count: number | null;
    raw_text_length: number | null;
    indexed_at: Date | null;
  }>(
    `select d.id, d.name, d.category, d.type, e.status, e.method, e.page_count, e.raw_text_length, e.indexed_at
       from document d left join extraction e on e.id = d.current_extraction_id
      where ${where.sql}
      order by d.category, d.name, d.id`,
    where.params,
  );
  return {
    data: rows.map((r) => ({
      documentId: r.id,
      name: r.name,
      category: r.category,
      type: r.type,
      indexed: r.status === 'completed',
      extractionStatus: r.status ?? 'pending',
      extractionMethod: r.method,
      pageCount: r.page_count ?? 0,
      rawTextLength: r.raw_text_length ?? 0,
      indexedAt: r.indexed_at ? new Date(r.indexed_at).toISOString().replace('Z', '+00:00') : null,
    })),
    meta: { projectId: input.projectId, totalDocuments: rows.length, includeHistorical: historical },
  };
}

export async function documentContext(
  em: EntityManager,
  access: DocumentIntelligenceAccess,
  input: { chunkId: number; before?: number | null; after?: number | null },
): Promise<DocumentContextResult> {
  if (!Number.isInteger(input.chunkId) || input.chunkId <= 0)
    throw badInput('chunk_id', 'must be a positive integer');
  const before = validateRange('before', input.before, 0, 5, 1);
  const after = validateRange('after', input.after, 0, 5, 1);
  const query = await nativeQuery(em);
  const [center] = await query<{
    chunk_index: number;
    extraction_id: number;
    document_id: number;
    project_id: number;
    is_latest: boolean;
  }>(
    `select c.chunk_index, c.extraction_id, d.id as document_id, d.project_id, d.is_latest
       from chunk c join document d on d.current_extraction_id = c.extraction_id
      where c.id = $1`,
    [input.chunkId],
  );
  if (!center || (!center.is_latest && !access.historical)) {
    throw new AppError(
      'NOT_FOUND',
      `chunk ${input.chunkId} not found: it may belong to an older extraction of a re-indexed document; run search-document-text again for fresh chunk ids`,
    );
  }
  const rows = await query<{
    id: number;
    chunk_index: number;
    page_number: number;
    raw_text: string;
    text_hash: string;
  }>(
    `select id, chunk_index, page_number, raw_text, text_hash from chunk
      where extraction_id = $1 and chunk_index between $2 and $3 order by chunk_index`,
    [center.extraction_id, center.chunk_index - before, center.chunk_index + after],
  );
  const data: ContextChunk[] = rows.map((r) => ({
    chunkId: r.id,
    chunkIndex: r.chunk_index,
    pageNumber: r.page_number,
    isCenter: r.id === input.chunkId,
    text: r.raw_text,
    stableCitation: { documentId: center.document_id, pageNumber: r.page_number, textHash: r.text_hash },
  }));
  return {
    data,
    meta: {
      chunkId: input.chunkId,
      documentId: center.document_id,
      projectId: center.project_id,
      extractionId: center.extraction_id,
      beforeReturned: rows.filter((r) => r.chunk_index < center.chunk_index).length,
      afterReturned: rows.filter((r) => r.chunk_index > center.chunk_index).length,
    },
  };
}
