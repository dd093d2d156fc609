import { MAX_SURFACE_FORMS } from './surface-forms.js';
import { Field, Int, ObjectType } from 'type-graphql';

/**
 * The Document Intelligence bodies, field for field the spec's `{data, meta}` (camelCase here; the
 * MCP facade aliases them to snake_case). Ids are Int: the tool outputs carry integers.
 */

const EXPANDED_TERMS_DESCRIPTION = `The spellings searched, without duplicates: first every searched variant (normalized, the query first: synonyms), then the printed forms each one also matches (30", 30-inch, 30 in., 1,850, soft-close ...); at most ${MAX_SURFACE_FORMS}`;
@ObjectType('StableCitation', {
  description: 'A citation that survives re-chunking: the page text hash, not the chunk id',
})
export class StableCitation {
  @Field(() => Int) documentId!: number;
  @Field(() => Int) pageNumber!: number;
  @Field({ description: "SHA-256 of the page's canonical (normalized) text" }) textHash!: string;
}

@ObjectType('SearchCoverage', {
  description: 'How much of the searched scope could answer: tells "not mentioned" apart from "not indexed"',
})
export class SearchCoverage {
  @Field(() => Int, { description: 'Documents in the searched scope' }) totalActiveDocuments!: number;
  @Field(() => Int, { description: 'Documents that extracted successfully and are searchable' })
  documentsWithText!: number;
  @Field(() => Int, { description: 'Documents that failed extraction or have no usable text' })
  documentsWithNoText!: number;
  @Field(() => Int, { description: 'Chunks the full-text pre-filter returned before strict filtering' })
  preFilterCandidates!: number;
}

@ObjectType('ChunkHit', {
  description: 'A chunk of a project PDF that contains the query or one of its variants',
})
export class ChunkHit {
  @Field(() => Int, { description: 'Tied to one extraction: re-indexing issues new ids' }) chunkId!: number;
  @Field(() => Int) projectId!: number;
  @Field() projectName!: string;
  @Field(() => Int) documentId!: number;
  @Field({ description: 'File name of the PDF' }) documentName!: string;
  @Field() category!: string;
  @Field(() => Int) pageNumber!: number;
  @Field({ description: 'About 200 characters of the document text, centred on the first match' })
  excerpt!: string;
  @Field({ description: 'The searched variant that matched' }) matchedTerm!: string;
  @Field(() => Int) extractionId!: number;
  @Field(() => StableCitation) stableCitation!: StableCitation;
}

@ObjectType('SearchDocumentTextMeta')
export class SearchDocumentTextMeta {
  @Field() query!: string;
  @Field(() => [String], { description: EXPANDED_TERMS_DESCRIPTION })
  expandedTerms!: string[];
  @Field(() => Int, { description: 'Matching chunks before the limit' }) totalChunksMatched!: number;
  @Field(() => SearchCoverage) coverage!: SearchCoverage;
}

@ObjectType('SearchDocumentTextResult')
export class SearchDocumentTextResult {
  @Field(() => [ChunkHit]) data!: ChunkHit[];
  @Field(() => SearchDocumentTextMeta) meta!: SearchDocumentTextMeta;
}

@ObjectType('ProjectMatch', { description: 'A project whose documents mention the query' })
export class ProjectMatch {
  @Field(() => Int) projectId!: number;
  @Field() projectName!: string;
  @Field(() => Int, { description: 'Matching chunks in the project' }) matchCount!: number;
  @Field(() => [String]) categoriesMatched!: string[];
  @Field({ description: 'Excerpt of the most relevant matching chunk' }) bestExcerpt!: string;
}

@ObjectType('FindProjectsMentioningMeta')
export class FindProjectsMentioningMeta {
  @Field() query!: string;
  @Field(() => [String], { description: EXPANDED_TERMS_DESCRIPTION }) expandedTerms!: string[];
  @Field(() => Int, { description: 'Matching projects before the limit' }) totalProjects!: number;
  @Field(() => SearchCoverage) coverage!: SearchCoverage;
}

@ObjectType('FindProjectsMentioningResult')
export class FindProjectsMentioningResult {
  @Field(() => [ProjectMatch]) data!: ProjectMatch[];
  @Field(() => FindProjectsMentioningMeta) meta!: FindProjectsMentioningMeta;
}

@ObjectType('DocumentListing', { description: 'A PDF of the project, indexed or not' })
export class DocumentListing {
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
      'How the text was read (the extractor). null while the extraction has not run yet (extraction_status pending or processing): the document is not searchable yet; read extraction_status, not this field.',
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
export class ProjectDocumentsResult {
  @Field(() => [DocumentListing]) data!: DocumentListing[];
  @Field(() => ProjectDocumentsMeta) meta!: ProjectDocumentsMeta;
}

@ObjectType('ContextChunk', { description: 'A chunk around a hit, in document order' })
export class ContextChunk {
  @Field(() => Int) chunkId!: number;
  @Field(() => Int, { description: 'Position of the chunk in the document' }) chunkIndex!: number;
  @Field(() => Int) pageNumber!: number;
  @Field({ description: 'true for the requested chunk only' }) isCenter!: boolean;
  @Field() text!: string;
  @Field(() => StableCitation) stableCitation!: StableCitation;
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
export class DocumentContextResult {
  @Field(() => [ContextChunk]) data!: ContextChunk[];
  @Field(() => DocumentContextMeta) meta!: DocumentContextMeta;
}
