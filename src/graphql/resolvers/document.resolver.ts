import { Arg, Ctx, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import { requireViewer } from '../../auth/entitlements.js';
import type { RequestContext } from '../../context/context.js';
import { DocumentSchema, type Document, type Extraction, type Project } from '../../entities/index.js';
import { parseId } from '../../services/validate.js';
import { DocumentType, ExtractionType } from '../types/document.type.js';
import { ProjectType } from '../types/project.type.js';

@Resolver(() => DocumentType)
export class DocumentResolver {
  @Query(() => DocumentType, { nullable: true })
  async document(@Ctx() ctx: RequestContext, @Arg('id', () => Int) id: number): Promise<Document | null> {
    requireViewer(ctx.viewer);
    return ctx.em.findOne(DocumentSchema, { id: parseId('id', id) });
  }

  @FieldResolver(() => ProjectType)
  async project(@Root() doc: Document, @Ctx() ctx: RequestContext): Promise<Project | null> {
    return ctx.loaders.project.load(doc.project.id);
  }

  @FieldResolver(() => ExtractionType, { nullable: true, description: 'The extraction search reads' })
  async extraction(@Root() doc: Document, @Ctx() ctx: RequestContext): Promise<Extraction | null> {
    return doc.currentExtraction ? ctx.loaders.extraction.load(doc.currentExtraction.id) : null;
  }

  @FieldResolver(() => Int, { nullable: true, description: 'The older revision this document replaces' })
  supersedesId(@Root() doc: Document): number | null {
    return doc.supersedes?.id ?? null;
  }
}
