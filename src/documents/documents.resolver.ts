import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
import { requireDocumentIntelligence } from '../auth/entitlements.js';
import type { RequestContext } from '../context/context.js';
import { CONTEXT_WINDOW, describeRange } from '../limits.js';
import * as documents from './documents.service.js';
import { DocumentContextResult, ProjectDocumentsResult } from './documents.types.js';

/** A project's PDFs and the text around a hit: Pro and Elite (older revisions on Elite only). */
@Resolver()
export class DocumentsResolver {
  @Query(() => ProjectDocumentsResult, {
    description: 'The PDFs of one project, including unindexed ones with their status',
  })
  projectDocuments(
    @Ctx() ctx: RequestContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('category', () => String, { nullable: true }) category: string | null,
    @Arg('includeHistorical', () => Boolean, { nullable: true }) includeHistorical: boolean | null,
  ): Promise<ProjectDocumentsResult> {
    const access = requireDocumentIntelligence(ctx.viewer);
    return documents.projectDocuments(ctx.em, access, { projectId, category, includeHistorical });
  }

  @Query(() => DocumentContextResult, { description: 'The chunks before and after a hit, in document order' })
  documentContext(
    @Ctx() ctx: RequestContext,
    @Arg('chunkId', () => Int) chunkId: number,
    @Arg('before', () => Int, { nullable: true, description: describeRange(CONTEXT_WINDOW) })
    before: number | null,
    @Arg('after', () => Int, { nullable: true, description: describeRange(CONTEXT_WINDOW) })
    after: number | null,
  ): Promise<DocumentContextResult> {
    const access = requireDocumentIntelligence(ctx.viewer);
    return documents.documentContext(ctx.em, access, { chunkId, before, after });
  }
}
