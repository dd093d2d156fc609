import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
import { requireDocumentIntelligence } from '../auth/entitlements.js';
import type { RequestContext } from '../context/context.js';
import { describeRange, REVISION_CHANGES_LIMIT } from '../limits.js';
import { compareDocumentRevisions, type RevisionComparisonView } from './revisions.service.js';
import { RevisionComparison } from './revisions.types.js';

/** What differs between two revisions of a document: Elite (it reads history); Pro gets the plan error. */
@Resolver()
export class RevisionsResolver {
  @Query(() => RevisionComparison, {
    description:
      'The changes between two revisions of a document, page by page: lines removed and added, and numbers that changed with the rest of the line the same (before → after). Elite plan.',
  })
  compareDocumentRevisions(
    @Ctx() ctx: RequestContext,
    @Arg('documentId', () => Int, {
      description: 'A revision; alone, it is compared with the revision it replaces',
    })
    documentId: number,
    @Arg('otherDocumentId', () => Int, {
      nullable: true,
      description: 'Another revision of the same document (older or newer)',
    })
    otherDocumentId: number | null,
    @Arg('cursor', () => String, { nullable: true, description: 'meta.nextCursor of the previous page' })
    cursor: string | null,
    @Arg('limit', () => Int, { nullable: true, description: describeRange(REVISION_CHANGES_LIMIT) })
    limit: number | null,
  ): Promise<RevisionComparisonView> {
    const access = requireDocumentIntelligence(ctx.viewer);
    return compareDocumentRevisions(ctx.em, access, { documentId, otherDocumentId, cursor, limit });
  }
}
