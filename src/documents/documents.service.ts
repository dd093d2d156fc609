import type { EntityManager } from '@mikro-orm/postgresql';
import type { DocumentIntelligenceAccess } from '../auth/entitlements.js';
import { byId, defineLoader, groupBy } from '../context/loaders.js';
import { nativeQuery } from '../db/native.js';
import { DocumentSchema, ExtractionSchema, type Document, type Extraction } from './document.entity.js';
import { AppError, badInput } from '../errors/catalogue.js';
import { CONTEXT_WINDOW, PROJECT_DOCUMENTS_PAGE } from '../limits.js';
import { parseId, validateCategory, validateRange } from '../errors/validate.js';
import type { StableCitationView } from '../search/search.views.js';
import { scopeSql } from './scope.js';

/**
 * What a project published and the text around a hit: the Document Intelligence reads that are not
 * search (list-project-documents, fetch-document-context). Both read the read connection (a
 * replica when configured).
 */

/** A PDF of a project as list-project-documents shows it (the GraphQL `DocumentListing`). */
export interface DocumentListingView {
  documentId: number;
  name: string;
  category: string;
  type: string | null;
  indexed: boolean;
  extractionStatus: string;
  extractionMethod: string | null;
  pageCount: number;
  rawTextLength: number;
  indexedAt: string | null;
}

export interface ProjectDocumentsView {
  data: DocumentListingView[];
  meta: { projectId: number; totalDocuments: number; includeHistorical: boolean };
}

export interface ContextChunkView {
  chunkId: number;
  chunkIndex: number;
  pageNumber: number;
  isCenter: boolean;
  text: string;
  stableCitation: StableCitationView;
  /** OCR's confidence (0-100) in the chunk's words; null for text from the PDF's text layer. */
  ocrConfidence: number | null;
}

export interface DocumentContextView {
  data: ContextChunkView[];
  meta: {
    chunkId: number;
    documentId: number;
    projectId: number;
    extractionId: number;
    beforeReturned: number;
    afterReturned: number;
  };
}

export interface DocumentView {
  id: number;
  projectId: number;
  name: string;
  category: string;
  type: string | null;
  isLatest: boolean;
  byteSize: number;
  contentHash: string;
  createdAt: Date;
  supersedesId: number | null;
  currentExtractionId: number | null;
}

export interface ExtractionView {
  id: number;
  status: string;
  method: string | null;
  extractorVersion: string | null;
  pageCount: number;
  rawTextLength: number;
  error: string | null;
  indexedAt: Date | null;
}

export function documentView(d: Document): DocumentView {
  return {
    id: d.id,
    projectId: d.project.id,
    name: d.name,
    category: d.category,
    type: d.type ?? null,
    isLatest: d.isLatest,
    byteSize: d.byteSize,
    contentHash: d.contentHash,
    createdAt: d.createdAt,
    supersedesId: d.supersedes?.id ?? null,
    currentExtractionId: d.currentExtraction?.id ?? null,
  };
}

export function extractionView(e: Extraction): ExtractionView {
  return {
    id: e.id,
    status: e.status,
    method: e.method ?? null,
    extractorVersion: e.extractorVersion ?? null,
    pageCount: e.pageCount,
    rawTextLength: e.rawTextLength,
    error: e.error ?? null,
    indexedAt: e.indexedAt ?? null,
  };
}

/** Per-request batch reads (src/context/loaders.ts). */
export const documentLoaders = {
  extraction: defineLoader<number, ExtractionView | null>('extraction', async (em, ids) =>
    byId((await em.find(ExtractionSchema, { id: { $in: [...ids] } })).map(extractionView), ids),
  ),
  /** Every revision of each project's documents, in id order. */
  documentsByProject: defineLoader<number, DocumentView[]>('documentsByProject', async (em, ids) =>
    groupBy(
      (await em.find(DocumentSchema, { project: { $in: [...ids] } }, { orderBy: { id: 'asc' } })).map(
        documentView,
      ),
      (d) => d.projectId,
      ids,
    ),
  ),
};

/** One document (any revision) by id, or null. */
export async function getDocument(em: EntityManager, id: number): Promise<DocumentView | null> {
  const doc = await em.findOne(DocumentSchema, { id: parseId('id', id) });
  return doc && documentView(doc);
}

export async function projectDocuments(
  em: EntityManager,
  access: DocumentIntelligenceAccess,
  input: {
    projectId: number;
    category?: string | null;
    includeHistorical?: boolean | null;
    /** Documents to skip in the listing's order (a cursor's position). */
    offset?: number;
  },
): Promise<ProjectDocumentsView> {
  if (!Number.isInteger(input.projectId) || input.projectId <= 0)
    throw badInput('projectId', 'must be a positive integer');
  const category = validateCategory(input.category);
  const historical = access.historical && !!input.includeHistorical;
  const query = await nativeQuery(em, 'read');
  const [project] = await query<{ id: number }>('select id from project where id = $1', [input.projectId]);
  if (!project)
    throw new AppError('NOT_FOUND', `project ${input.projectId} not found`, { subject: 'project' });
  const where = scopeSql({ projectId: input.projectId, category, historical }, 1);
  const rows = await query<{
    id: number;
    name: string;
    category: string;
    type: string | null;
    status: string | null;
    method: string | null;
    page_count: number | null;
    raw_text_length: number | null;
    indexed_at: Date | null;
    total: number;
  }>(
    `select d.id, d.name, d.category, d.type, e.status, e.method, e.page_count, e.raw_text_length, e.indexed_at,
            count(*) over ()::int as total
       from document d left join extraction e on e.id = d.current_extraction_id
      where ${where.sql}
      order by d.category, d.name, d.id
      limit ${PROJECT_DOCUMENTS_PAGE} offset $${where.params.length + 1}`,
    [...where.params, input.offset ?? 0],
  );
  return {
    data: rows.map((r) => ({
      documentId: r.id,
      name: r.name,
      category: r.category,
      type: r.type,
      indexed: r.status === 'completed',
      extractionStatus: r.status ?? 'pending',
      extractionMethod: r.method,
      pageCount: r.page_count ?? 0,
      rawTextLength: r.raw_text_length ?? 0,
      indexedAt: r.indexed_at ? new Date(r.indexed_at).toISOString().replace('Z', '+00:00') : null,
    })),
    meta: { projectId: input.projectId, totalDocuments: rows[0]?.total ?? 0, includeHistorical: historical },
  };
}

export async function documentContext(
  em: EntityManager,
  access: DocumentIntelligenceAccess,
  input: { chunkId: number; before?: number | null; after?: number | null },
): Promise<DocumentContextView> {
  if (!Number.isInteger(input.chunkId) || input.chunkId <= 0)
    throw badInput('chunkId', 'must be a positive integer');
  const before = validateRange('before', input.before, CONTEXT_WINDOW);
  const after = validateRange('after', input.after, CONTEXT_WINDOW);
  const query = await nativeQuery(em, 'read');
  const [center] = await query<{
    chunk_index: number;
    extraction_id: number;
    document_id: number;
    project_id: number;
    is_latest: boolean;
  }>(
    `select c.chunk_index, c.extraction_id, d.id as document_id, d.project_id, d.is_latest
       from chunk c join document d on d.current_extraction_id = c.extraction_id
      where c.id = $1`,
    [input.chunkId],
  );
  if (!center || (!center.is_latest && !access.historical)) {
    throw new AppError(
      'NOT_FOUND',
      `chunk ${input.chunkId} not found: it may belong to an older extraction of a re-indexed document`,
      { subject: 'chunk' },
    );
  }
  const rows = await query<{
    id: number;
    chunk_index: number;
    page_number: number;
    raw_text: string;
    text_hash: string;
    ocr_confidence: number | null;
  }>(
    `select id, chunk_index, page_number, raw_text, text_hash, ocr_confidence from chunk
      where extraction_id = $1 and chunk_index between $2 and $3 order by chunk_index`,
    [center.extraction_id, center.chunk_index - before, center.chunk_index + after],
  );
  const data: ContextChunkView[] = rows.map((r) => ({
    chunkId: r.id,
    chunkIndex: r.chunk_index,
    pageNumber: r.page_number,
    isCenter: r.id === input.chunkId,
    text: r.raw_text,
    stableCitation: { documentId: center.document_id, pageNumber: r.page_number, textHash: r.text_hash },
    ocrConfidence: r.ocr_confidence,
  }));
  return {
    data,
    meta: {
      chunkId: input.chunkId,
      documentId: center.document_id,
      projectId: center.project_id,
      extractionId: center.extraction_id,
      beforeReturned: rows.filter((r) => r.chunk_index < center.chunk_index).length,
      afterReturned: rows.filter((r) => r.chunk_index > center.chunk_index).length,
    },
  };
}

/** Chunks on each side of a `fetch` result's hit (chunks are at most 1,000 characters). */
export const FETCH_CONTEXT_CHUNKS = 2;

/** Where a search result comes from. */
export interface SearchResultMetadataView {
  documentId: number;
  documentName: string;
  projectId: number;
  projectName: string;
  category: string;
  pageNumber: number;
  chunkId: number;
  stableCitation: StableCitationView;
}

/** A search result read in full (the `fetch` tool): the hit and its neighbours as one text. */
export interface SearchResultView {
  id: string;
  text: string;
  metadata: SearchResultMetadataView;
}

/**
 * The text behind a search result id (the chunk id `search` returned, as a string): the hit with
 * FETCH_CONTEXT_CHUNKS chunks either side, in document order, under the same rules as
 * fetch-document-context (an older revision's chunk only on Elite).
 */
export async function searchResult(
  em: EntityManager,
  access: DocumentIntelligenceAccess,
  id: string,
): Promise<SearchResultView> {
  const trimmed = id.trim();
  if (!/^[1-9]\d{0,9}$/.test(trimmed) || Number(trimmed) > 2147483647)
    throw badInput('id', 'must be an id returned by search');
  const chunkId = Number(trimmed);
  const context = await documentContext(em, access, {
    chunkId,
    before: FETCH_CONTEXT_CHUNKS,
    after: FETCH_CONTEXT_CHUNKS,
  });
  const center = context.data.find((c) => c.isCenter)!;
  const query = await nativeQuery(em, 'read');
  const [names] = await query<{ document_name: string; project_name: string; category: string }>(
    `select d.name as document_name, p.name as project_name, d.category
       from document d join project p on p.id = d.project_id where d.id = $1`,
    [context.meta.documentId],
  );
  return {
    id: trimmed,
    text: context.data.map((c) => c.text).join('\n\n'),
    metadata: {
      documentId: context.meta.documentId,
      documentName: names.document_name,
      projectId: context.meta.projectId,
      projectName: names.project_name,
      category: names.category,
      pageNumber: center.pageNumber,
      chunkId,
      stableCitation: center.stableCitation,
    },
  };
}

/** What serving a document's PDF needs before its bytes. */
export interface DocumentPdfView {
  id: number;
  name: string;
  byteSize: number;
  contentHash: string;
  createdAt: Date;
}

/**
 * A document whose PDF the caller may open: the latest revision on Pro and Elite, an older one on
 * Elite only (as search); otherwise NOT_FOUND, so a refused caller learns nothing of it.
 */
export async function documentPdf(
  em: EntityManager,
  access: DocumentIntelligenceAccess,
  id: number,
): Promise<DocumentPdfView> {
  const query = await nativeQuery(em, 'read');
  const [row] = await query<{
    id: number;
    name: string;
    byte_size: number;
    content_hash: string;
    created_at: Date;
    is_latest: boolean;
  }>('select id, name, byte_size, content_hash, created_at, is_latest from document where id = $1', [id]);
  if (!row || (!row.is_latest && !access.historical)) {
    throw new AppError('NOT_FOUND', `document ${id} not found`);
  }
  return {
    id: row.id,
    name: row.name,
    byteSize: row.byte_size,
    contentHash: row.content_hash,
    createdAt: new Date(row.created_at),
  };
}

/** Bytes `start` to `end` (inclusive) of a document's PDF, read in the database. */
export async function documentPdfBytes(
  em: EntityManager,
  id: number,
  start: number,
  end: number,
): Promise<Buffer> {
  const query = await nativeQuery(em, 'read');
  const [row] = await query<{ part: Uint8Array }>(
    'select substring(content from $2::int for $3::int) as part from document where id = $1',
    [id, start + 1, end - start + 1],
  );
  if (!row) throw new AppError('NOT_FOUND', `document ${id} not found`);
  return Buffer.from(row.part.buffer, row.part.byteOffset, row.part.byteLength);
}
