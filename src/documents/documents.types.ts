import { Field, Float, Int, ObjectType } from 'type-graphql';
import { OCR_CONFIDENCE_DESCRIPTION, StableCitation } from '../search/search.types.js';
import type {
  ContextChunkView,
  DocumentContextView,
  DocumentListingView,
  DocumentView,
  ExtractionView,
  ProjectDocumentsView,
  SearchResultMetadataView,
  SearchResultView,
} from './documents.service.js';

@ObjectType('DocumentListing', { description: 'A PDF of the project, indexed or not' })
export class DocumentListing implements DocumentListingView {
  @Field(() => Int) documentId!: number;
  @Field() name!: string;
  @Field() category!: string;
  @Field(() => String, {
    nullable: true,
    description: 'The document type the publisher gave, when any; null when none was given',
  })
  type!: string | null;
  @Field({ description: 'false for documents that failed extraction or are still pending' })
  indexed!: boolean;
  @Field({ description: 'pending, processing, completed, no_text or failed' }) extractionStatus!: string;
  @Field(() => String, {
    nullable: true,
    description:
      'How the text was read: unpdf-<version> from the text layer, ocr when every page with text was read by OCR from its image (a scan), unpdf-<version>+ocr when both. null while the extraction has not run yet (extraction_status pending or processing): the document is not searchable yet; read extraction_status, not this field.',
  })
  extractionMethod!: string | null;
  @Field(() => Int) pageCount!: number;
  @Field(() => Int) rawTextLength!: number;
  @Field(() => String, {
    nullable: true,
    description:
      'When the document became searchable, ISO 8601 with offset. null when it is not indexed (indexed false: extraction pending, processing, failed or no_text): its text cannot be searched, and extraction_status says why.',
  })
  indexedAt!: string | null;
}

@ObjectType('ProjectDocumentsMeta')
export class ProjectDocumentsMeta {
  @Field(() => Int) projectId!: number;
  @Field(() => Int) totalDocuments!: number;
  @Field({ description: 'Whether older revisions are listed (Elite only)' }) includeHistorical!: boolean;
}

@ObjectType('ProjectDocumentsResult')
export class ProjectDocumentsResult implements ProjectDocumentsView {
  @Field(() => [DocumentListing]) data!: DocumentListing[];
  @Field(() => ProjectDocumentsMeta) meta!: ProjectDocumentsMeta;
}

@ObjectType('ContextChunk', { description: 'A chunk around a hit, in document order' })
export class ContextChunk implements ContextChunkView {
  @Field(() => Int) chunkId!: number;
  @Field(() => Int, { description: 'Position of the chunk in the document' }) chunkIndex!: number;
  @Field(() => Int) pageNumber!: number;
  @Field({ description: 'true for the requested chunk only' }) isCenter!: boolean;
  @Field() text!: string;
  @Field(() => StableCitation) stableCitation!: StableCitation;
  @Field(() => Float, { nullable: true, description: OCR_CONFIDENCE_DESCRIPTION }) ocrConfidence!:
    number | null;
}

@ObjectType('DocumentContextMeta')
export class DocumentContextMeta {
  @Field(() => Int) chunkId!: number;
  @Field(() => Int) documentId!: number;
  @Field(() => Int) projectId!: number;
  @Field(() => Int) extractionId!: number;
  @Field(() => Int) beforeReturned!: number;
  @Field(() => Int) afterReturned!: number;
}

@ObjectType('DocumentContextResult')
export class DocumentContextResult implements DocumentContextView {
  @Field(() => [ContextChunk]) data!: ContextChunk[];
  @Field(() => DocumentContextMeta) meta!: DocumentContextMeta;
}

@ObjectType('Extraction', {
  description: 'One text extraction of a document; chunk ids belong to exactly one extraction',
})
export class ExtractionType implements ExtractionView {
  @Field(() => Int) id!: number;
  @Field({ description: 'pending, processing, completed, no_text or failed' }) status!: string;
  @Field(() => String, {
    nullable: true,
    description:
      'unpdf-<version> (text layer), ocr (every page with text read by OCR) or unpdf-<version>+ocr (both)',
  })
  method!: string | null;
  @Field(() => String, { nullable: true }) extractorVersion!: string | null;
  @Field(() => Int) pageCount!: number;
  @Field(() => Int) rawTextLength!: number;
  @Field(() => String, { nullable: true, description: 'Why extraction failed, when it did' }) error!:
    string | null;
  @Field(() => Date, { nullable: true }) indexedAt!: Date | null;
}

@ObjectType('Document', { description: 'A PDF of a project (brochure, price list, ...)' })
export class DocumentType implements Omit<
  DocumentView,
  'projectId' | 'supersedesId' | 'currentExtractionId'
> {
  @Field(() => Int) id!: number;
  @Field({ description: 'File name of the PDF' }) name!: string;
  @Field({ description: 'One of the eight document categories' }) category!: string;
  @Field(() => String, { nullable: true }) type!: string | null;
  @Field({ description: 'false for older revisions superseded by a newer upload' }) isLatest!: boolean;
  @Field(() => Int) byteSize!: number;
  @Field() contentHash!: string;
  @Field(() => Date) createdAt!: Date;
}

@ObjectType('SearchResultMetadata', { description: 'Where a search result comes from' })
export class SearchResultMetadata implements SearchResultMetadataView {
  @Field(() => Int) documentId!: number;
  @Field() documentName!: string;
  @Field(() => Int) projectId!: number;
  @Field() projectName!: string;
  @Field() category!: string;
  @Field(() => Int, { description: 'The page of the hit' }) pageNumber!: number;
  @Field(() => Int) chunkId!: number;
  @Field(() => StableCitation) stableCitation!: StableCitation;
}

@ObjectType('SearchResultDocument', {
  description: 'A search result read in full: the hit and the chunks around it as one text',
})
export class SearchResultDocument implements SearchResultView {
  @Field({ description: 'The id search returned (a chunk id)' }) id!: string;
  @Field({ description: 'The hit and up to two chunks either side, in document order' }) text!: string;
  @Field(() => SearchResultMetadata) metadata!: SearchResultMetadata;
}
