import { Arg, Ctx, Field, InputType, Int, Mutation, ObjectType, Resolver } from 'type-graphql';
import { requireOperator } from '../auth/entitlements.js';
import type { RequestContext } from '../context/context.js';
import { DocumentType, ExtractionType } from '../documents/documents.types.js';
import type { ExtractionView } from '../documents/documents.service.js';
import { decodeBase64Pdf, reindexAndQueue, uploadAndQueue } from './ingest.service.js';
import type { Ingestion } from './ingestion.js';

@InputType()
export class UploadDocumentInput {
  @Field(() => Int) projectId!: number;
  @Field({
    description:
      'One of: incentives, features-finishes, brochure, hot-list, price-list, deposit-structure, fact-sheet, other',
  })
  category!: string;
  @Field({ description: 'File name of the PDF' }) name!: string;
  @Field(() => String, { nullable: true }) type?: string | null;
  @Field({ description: 'The PDF bytes, base64-encoded' }) contentBase64!: string;
  @Field(() => Int, { nullable: true, description: 'The older revision this upload replaces (same project)' })
  supersedesDocumentId?: number | null;
}

@ObjectType('UploadDocumentPayload')
export class UploadDocumentPayload {
  @Field(() => DocumentType) document!: object;
  @Field({
    description: 'true when the same bytes were already stored for this project (nothing new was stored)',
  })
  duplicate!: boolean;
  @Field(() => Int, { nullable: true, description: 'The extraction queued for this upload' }) extractionId!:
    number | null;
}

/** The ingestion service is attached to the app deps; resolvers only translate. */
function ingestion(ctx: RequestContext): Ingestion {
  return ctx.deps.ingestion;
}

@Resolver()
export class IngestionResolver {
  @Mutation(() => UploadDocumentPayload, {
    description:
      'Stores a PDF and queues its text extraction (operator). For small files: the request body is at most 1 MB, so the PDF at most ~750 kB once base64-encoded; larger PDFs (up to MAX_UPLOAD_BYTES) go through PUT /admin/projects/{projectId}/documents',
  })
  async uploadDocument(
    @Ctx() ctx: RequestContext,
    @Arg('input', () => UploadDocumentInput) input: UploadDocumentInput,
  ): Promise<UploadDocumentPayload> {
    requireOperator(ctx.viewer);
    const max = ctx.deps.config.maxUploadBytes;
    const content = decodeBase64Pdf('contentBase64', input.contentBase64, max);
    return uploadAndQueue(ctx.em, ingestion(ctx).queue, { ...input, content }, max);
  }

  @Mutation(() => ExtractionType, {
    description:
      'Re-extracts a document into a new extraction; search switches to it atomically when it completes',
  })
  async reindexDocument(
    @Ctx() ctx: RequestContext,
    @Arg('documentId', () => Int) documentId: number,
  ): Promise<ExtractionView> {
    requireOperator(ctx.viewer);
    return reindexAndQueue(ctx.em, ingestion(ctx).queue, documentId);
  }
}
