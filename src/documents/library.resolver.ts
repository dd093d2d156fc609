import { Arg, Ctx, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import { requireDocumentIntelligence } from '../auth/entitlements.js';
import type { RequestContext } from '../context/context.js';
import { CURSOR_DESCRIPTION, pagedByGeneration } from '../context/paging.js';
import { DOCUMENT_LIBRARY_PAGE } from '../limits.js';
import * as library from './library.service.js';
import { DocumentLibraryResult, DocumentPageText, DocumentTextResult } from './library.types.js';
import { documentPageUrl } from './pdf-link.js';

/** The documents as AI clients browse and read them: Pro and Elite (older revisions on Elite only). */
@Resolver()
export class LibraryResolver {
  @Query(() => DocumentLibraryResult, {
    description: `Every document the plan may read, in id order, ${DOCUMENT_LIBRARY_PAGE} at a time`,
  })
  documentLibrary(
    @Ctx() ctx: RequestContext,
    @Arg('cursor', () => String, { nullable: true, description: CURSOR_DESCRIPTION }) cursor: string | null,
  ): Promise<library.DocumentLibraryView> {
    const access = requireDocumentIntelligence(ctx.viewer);
    return pagedByGeneration(ctx, 'library', [access.historical], cursor, async (offset) => {
      const result = await library.documentLibrary(ctx.em, access, offset);
      const end = offset + DOCUMENT_LIBRARY_PAGE;
      return { result, more: end < result.meta.totalDocuments, end };
    });
  }

  @Query(() => DocumentTextResult, {
    description:
      "A document's extracted text by page: one page, or whole pages from the first up to about 60 KB, with the next page to read",
  })
  documentText(
    @Ctx() ctx: RequestContext,
    @Arg('documentId', () => Int) documentId: number,
    @Arg('page', () => Int, { nullable: true, description: 'Only this page' }) page: number | null,
  ): Promise<library.DocumentTextView> {
    const access = requireDocumentIntelligence(ctx.viewer);
    return library.documentText(ctx.em, access, { documentId, page });
  }
}

/** The address of a page's PDF, for a person to open. */
@Resolver(() => DocumentPageText)
export class DocumentPageTextResolver {
  @FieldResolver(() => String, { description: 'The PDF at this page, for a person to open' })
  url(@Root() page: library.DocumentPageView, @Ctx() ctx: RequestContext): string {
    return documentPageUrl(ctx, page.documentId, page.pageNumber);
  }
}
