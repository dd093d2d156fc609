import { Arg, Ctx, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import { requireDocumentIntelligence } from '../auth/entitlements.js';
import type { RequestContext } from '../context/context.js';
import { boundedSearch } from '../context/in-flight.js';
import * as search from './search.service.js';
import { searchDuration, secondsSince } from '../metrics/metrics.js';
import { ChunkHit, FindProjectsMentioningResult, SearchDocumentTextResult } from './search.types.js';
import type { ChunkHitView } from './search.views.js';
import { documentPageUrl, hitTitle } from '../documents/pdf-link.js';
import { describeRange, PROJECTS_MENTIONING_LIMIT, SEARCH_LIMIT } from '../limits.js';

const HOW_TO_QUERY =
  'Matching is exact keyword plus synonyms (hyphen, quote, spacing and plural variants), not natural language: search concrete terms ("quartz countertops", "30 inch gas range"), try a few variants and merge results; 0 matches after a few variants means the term is not mentioned.';

/** A search's own time (after its turn, when it had to wait for one), by kind, for /metrics. */
async function timed<T>(kind: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    searchDuration.observe({ kind }, secondsSince(started));
  }
}

/** Document Intelligence: Pro searches latest documents, Elite also older revisions; lower plans get a permission error. */
@Resolver()
export class SearchResolver {
  @Query(() => SearchDocumentTextResult, {
    description: `Chunks of project PDFs that mention a term. ${HOW_TO_QUERY}`,
  })
  searchDocumentText(
    @Ctx() ctx: RequestContext,
    @Arg('query', () => String) query: string,
    @Arg('projectId', () => Int, { nullable: true }) projectId: number | null,
    @Arg('category', () => String, { nullable: true }) category: string | null,
    @Arg('includeHistorical', () => Boolean, { nullable: true }) includeHistorical: boolean | null,
    @Arg('limit', () => Int, { nullable: true, description: describeRange(SEARCH_LIMIT) })
    limit: number | null,
  ): Promise<SearchDocumentTextResult> {
    const access = requireDocumentIntelligence(ctx.viewer);
    return boundedSearch(ctx, projectId ? 'project' : 'global', () =>
      timed(projectId ? 'documents-in-project' : 'documents-everywhere', () =>
        search.searchDocumentText(ctx.em, access, {
          query,
          projectId,
          category,
          includeHistorical,
          limit,
        }),
      ),
    );
  }

  @Query(() => FindProjectsMentioningResult, {
    description: `Projects whose PDFs mention a term, ranked by match count then relevance. ${HOW_TO_QUERY}`,
  })
  findProjectsMentioning(
    @Ctx() ctx: RequestContext,
    @Arg('query', () => String) query: string,
    @Arg('category', () => String, { nullable: true }) category: string | null,
    @Arg('includeHistorical', () => Boolean, { nullable: true }) includeHistorical: boolean | null,
    @Arg('limit', () => Int, { nullable: true, description: describeRange(PROJECTS_MENTIONING_LIMIT) })
    limit: number | null,
  ): Promise<FindProjectsMentioningResult> {
    const access = requireDocumentIntelligence(ctx.viewer);
    return boundedSearch(ctx, 'global', () =>
      timed('projects-mentioning', () =>
        search.findProjectsMentioning(ctx.em, access, { query, category, includeHistorical, limit }),
      ),
    );
  }
}

/** What a person and a research client need of a hit: an address to open, a heading, an id to fetch. */
@Resolver(() => ChunkHit)
export class ChunkHitResolver {
  @FieldResolver(() => String, { description: 'The PDF at the page of the hit, for a person to open' })
  url(@Root() hit: ChunkHitView, @Ctx() ctx: RequestContext): string {
    return documentPageUrl(ctx, hit.documentId, hit.pageNumber);
  }

  @FieldResolver(() => String, { description: 'Document, project and page' })
  title(@Root() hit: ChunkHitView): string {
    return hitTitle(hit);
  }

  @FieldResolver(() => String, { description: 'The chunk id as a string: the id searchResult reads' })
  resultId(@Root() hit: ChunkHitView): string {
    return String(hit.chunkId);
  }
}
