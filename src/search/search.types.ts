import { MAX_SURFACE_FORMS } from './query/surface-forms.js';
import { Field, Float, Int, ObjectType } from 'type-graphql';
import { NEXT_CURSOR_DESCRIPTION } from '../context/cursor.js';
import type {
  ChunkHitView,
  FindProjectsMentioningView,
  ProjectMatchView,
  SearchCoverageView,
  SearchDocumentTextView,
  StableCitationView,
} from './search.views.js';

/**
 * The Document Intelligence bodies, field for field the spec's `{data, meta}` (camelCase here; the
 * MCP facade aliases them to snake_case). Ids are Int: the tool outputs carry integers.
 */

const EXPANDED_TERMS_DESCRIPTION = `The spellings searched, without duplicates: first every searched variant (normalized, the query first: synonyms), then the printed forms each one also matches (30", 30-inch, 30 in., 1,850, soft-close ...); at most ${MAX_SURFACE_FORMS}`;
/** The chunk field's description, the same wherever a chunk is shown. */
export const OCR_CONFIDENCE_DESCRIPTION =
  "For a chunk read by OCR from a page image: the recognizer's confidence in its words, 0-100 (their length-weighted mean); null for text from the PDF's text layer";

@ObjectType('StableCitation', {
  description: 'A citation that survives re-chunking: the page text hash, not the chunk id',
})
export class StableCitation implements StableCitationView {
  @Field(() => Int) documentId!: number;
  @Field(() => Int) pageNumber!: number;
  @Field({ description: "SHA-256 of the page's canonical (normalized) text" }) textHash!: string;
}

@ObjectType('SearchCoverage', {
  description: 'How much of the searched scope could answer: tells "not mentioned" apart from "not indexed"',
})
export class SearchCoverage implements SearchCoverageView {
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
export class ChunkHit implements ChunkHitView {
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
  @Field(() => Float, { nullable: true, description: OCR_CONFIDENCE_DESCRIPTION }) ocrConfidence!:
    number | null;
}

@ObjectType('SearchDocumentTextMeta')
export class SearchDocumentTextMeta {
  @Field() query!: string;
  @Field(() => [String], { description: EXPANDED_TERMS_DESCRIPTION })
  expandedTerms!: readonly string[];
  @Field(() => Int, { description: 'Matching chunks before the limit' }) totalChunksMatched!: number;
  @Field(() => SearchCoverage) coverage!: SearchCoverage;
  @Field(() => String, { nullable: true, description: NEXT_CURSOR_DESCRIPTION })
  nextCursor?: string | null;
}

@ObjectType('SearchDocumentTextResult')
export class SearchDocumentTextResult implements SearchDocumentTextView {
  @Field(() => [ChunkHit]) data!: ChunkHit[];
  @Field(() => SearchDocumentTextMeta) meta!: SearchDocumentTextMeta;
}

@ObjectType('ProjectMatch', { description: 'A project whose documents mention the query' })
export class ProjectMatch implements ProjectMatchView {
  @Field(() => Int) projectId!: number;
  @Field() projectName!: string;
  @Field(() => Int, { description: 'Matching chunks in the project' }) matchCount!: number;
  @Field(() => [String]) categoriesMatched!: string[];
  @Field({ description: 'Excerpt of the most relevant matching chunk' }) bestExcerpt!: string;
}

@ObjectType('FindProjectsMentioningMeta')
export class FindProjectsMentioningMeta {
  @Field() query!: string;
  @Field(() => [String], { description: EXPANDED_TERMS_DESCRIPTION }) expandedTerms!: readonly string[];
  @Field(() => Int, { description: 'Matching projects before the limit' }) totalProjects!: number;
  @Field(() => SearchCoverage) coverage!: SearchCoverage;
  @Field(() => String, { nullable: true, description: NEXT_CURSOR_DESCRIPTION })
  nextCursor?: string | null;
}

@ObjectType('FindProjectsMentioningResult')
export class FindProjectsMentioningResult implements FindProjectsMentioningView {
  @Field(() => [ProjectMatch]) data!: ProjectMatch[];
  @Field(() => FindProjectsMentioningMeta) meta!: FindProjectsMentioningMeta;
}
