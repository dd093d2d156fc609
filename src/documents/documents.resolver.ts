import { Arg, Ctx, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import { requireDocumentIntelligence, requireViewer } from '../auth/entitlements.js';
import { catalogueLoaders, type ProjectView } from '../catalogue/catalogue.service.js';
import { ProjectType } from '../catalogue/catalogue.types.js';
import type { RequestContext } from '../context/context.js';
import { PAGE, pageDescription, pageOf } from '../graphql/limits.js';
import { CONTEXT_WINDOW, describeRange } from '../limits.js';
import * as documents from './documents.service.js';
import type { DocumentView, ExtractionView } from './documents.service.js';
import {
  ContextChunk,
  DocumentContextResult,
  DocumentType,
  ExtractionType,
  ProjectDocumentsResult,
  SearchResultDocument,
} from './documents.types.js';
import { documentPageUrl, hitTitle } from './pdf-link.js';

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
  ): Promise<documents.ProjectDocumentsView> {
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
  ): Promise<documents.DocumentContextView> {
    const access = requireDocumentIntelligence(ctx.viewer);
    return documents.documentContext(ctx.em, access, { chunkId, before, after });
  }

  @Query(() => SearchResultDocument, {
    description: 'A search result read in full, by the id searchDocumentText gave it (resultId)',
  })
  searchResult(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => String) id: string,
  ): Promise<documents.SearchResultView> {
    const access = requireDocumentIntelligence(ctx.viewer);
    return documents.searchResult(ctx.em, access, id);
  }
}

/** The address of a search result's PDF page and its heading. */
@Resolver(() => SearchResultDocument)
export class SearchResultDocumentResolver {
  @FieldResolver(() => String, { description: 'The PDF at the page of the hit, for a person to open' })
  url(@Root() result: documents.SearchResultView, @Ctx() ctx: RequestContext): string {
    return documentPageUrl(ctx, result.metadata.documentId, result.metadata.pageNumber);
  }

  @FieldResolver(() => String, { description: 'Document, project and page' })
  title(@Root() result: documents.SearchResultView): string {
    return hitTitle(result.metadata);
  }
}

/** The address of a context chunk's PDF page. */
@Resolver(() => ContextChunk)
export class ContextChunkResolver {
  @FieldResolver(() => String, { description: "The PDF at this chunk's page, for a person to open" })
  url(@Root() chunk: documents.ContextChunkView, @Ctx() ctx: RequestContext): string {
    return documentPageUrl(ctx, chunk.stableCitation.documentId, chunk.pageNumber);
  }
}

/** A document as a catalogue record: any signed-in caller. */
@Resolver(() => DocumentType)
export class DocumentResolver {
  @Query(() => DocumentType, { nullable: true })
  async document(@Ctx() ctx: RequestContext, @Arg('id', () => Int) id: number): Promise<DocumentView | null> {
    requireViewer(ctx.viewer);
    return documents.getDocument(ctx.em, id);
  }

  @FieldResolver(() => ProjectType)
  async project(@Root() doc: DocumentView, @Ctx() ctx: RequestContext): Promise<ProjectView | null> {
    return ctx.loaders.get(catalogueLoaders.project).load(doc.projectId);
  }

  @FieldResolver(() => ExtractionType, { nullable: true, description: 'The extraction search reads' })
  async extraction(@Root() doc: DocumentView, @Ctx() ctx: RequestContext): Promise<ExtractionView | null> {
    if (doc.currentExtractionId === null) return null;
    return ctx.loaders.get(documents.documentLoaders.extraction).load(doc.currentExtractionId);
  }

  @FieldResolver(() => Int, { nullable: true, description: 'The older revision this document replaces' })
  supersedesId(@Root() doc: DocumentView): number | null {
    return doc.supersedesId;
  }
}

/** `Project.documents`: the documents feature adds its list to the catalogue's Project. */
@Resolver(() => ProjectType)
export class ProjectDocumentsResolver {
  @FieldResolver(() => [DocumentType], {
    description: `Latest revisions of the project documents. ${pageDescription('documents', PAGE.documents)}`,
  })
  async documents(
    @Root() project: ProjectView,
    @Ctx() ctx: RequestContext,
    @Arg('first', () => Int, { nullable: true }) first: number | null,
    @Arg('offset', () => Int, { nullable: true }) offset: number | null,
  ): Promise<DocumentView[]> {
    const all = await ctx.loaders.get(documents.documentLoaders.documentsByProject).load(project.id);
    return pageOf(
      all.filter((d) => d.isLatest),
      PAGE.documents,
      first,
      offset,
    );
  }
}
