import { Field, Int, ObjectType } from 'type-graphql';
import { NEXT_CURSOR_DESCRIPTION } from '../context/cursor.js';
import type {
  DocumentLibraryView,
  DocumentPageView,
  DocumentTextView,
  LibraryDocumentView,
} from './library.service.js';

@ObjectType('LibraryDocument', { description: 'A document the plan may read, with its project' })
export class LibraryDocument implements LibraryDocumentView {
  @Field(() => Int) documentId!: number;
  @Field({ description: 'File name of the PDF' }) name!: string;
  @Field() category!: string;
  @Field(() => Int) projectId!: number;
  @Field() projectName!: string;
  @Field({ description: 'false for older revisions (listed and readable on Elite only)' })
  isLatest!: boolean;
  @Field({ description: 'pending, processing, completed, no_text or failed' }) extractionStatus!: string;
  @Field(() => Int) pageCount!: number;
  @Field(() => Int) rawTextLength!: number;
}

@ObjectType('DocumentLibraryMeta')
export class DocumentLibraryMeta {
  @Field(() => Int) totalDocuments!: number;
  @Field({ description: 'Whether older revisions are listed (Elite only)' }) includeHistorical!: boolean;
  @Field(() => String, { nullable: true, description: NEXT_CURSOR_DESCRIPTION })
  nextCursor?: string | null;
}

@ObjectType('DocumentLibraryResult')
export class DocumentLibraryResult implements DocumentLibraryView {
  @Field(() => [LibraryDocument]) data!: LibraryDocument[];
  @Field(() => DocumentLibraryMeta) meta!: DocumentLibraryMeta;
}

@ObjectType('DocumentPageText', { description: "One page of a document's extracted text" })
export class DocumentPageText implements DocumentPageView {
  @Field(() => Int) documentId!: number;
  @Field(() => Int) pageNumber!: number;
  @Field() text!: string;
  @Field({ description: 'true when the page alone was longer than one read answers, and its text was cut' })
  truncated!: boolean;
}

@ObjectType('DocumentTextResult', { description: "A document's extracted text, page by page" })
export class DocumentTextResult implements DocumentTextView {
  @Field(() => LibraryDocument) document!: LibraryDocument;
  @Field(() => [DocumentPageText]) pages!: DocumentPageText[];
  @Field(() => Int, {
    nullable: true,
    description: 'The next page with text that this answer did not include; null at the end',
  })
  nextPage!: number | null;
}
