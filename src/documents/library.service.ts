import type { EntityManager } from '@mikro-orm/postgresql';
import type { DocumentIntelligenceAccess } from '../auth/entitlements.js';
import { nativeQuery } from '../db/native.js';
import { AppError, badInput } from '../errors/catalogue.js';
import { parseId } from '../errors/validate.js';
import { rebuildPages } from '../revisions/page-text.js';
import {
  DOCUMENT_LIBRARY_PAGE,
  DOCUMENT_PAGE_OVERHEAD_BYTES,
  DOCUMENT_TEXT_BUDGET_BYTES,
  DOCUMENT_TEXT_MAX_PAGES,
  ENTITY_ID,
} from '../limits.js';

/**
 * The documents themselves, as AI clients browse and read them (MCP resources): every document the
 * plan may see, and a document's extracted text page by page. Same plan rules as search: the
 * latest revisions on Pro, older ones too on Elite.
 */

/** A document as the library lists it. */
export interface LibraryDocumentView {
  documentId: number;
  name: string;
  category: string;
  projectId: number;
  projectName: string;
  isLatest: boolean;
  extractionStatus: string;
  pageCount: number;
  rawTextLength: number;
}

export interface DocumentLibraryView {
  data: LibraryDocumentView[];
  meta: { totalDocuments: number; includeHistorical: boolean };
}

/** Every document the caller's plan may see, in id order, DOCUMENT_LIBRARY_PAGE at a time from `offset`. */
export async function documentLibrary(
  em: EntityManager,
  access: DocumentIntelligenceAccess,
  offset: number,
): Promise<DocumentLibraryView> {
  const query = await nativeQuery(em, 'read');
  const rows = await query<{
    id: number;
    name: string;
    category: string;
    project_id: number;
    project_name: string;
    is_latest: boolean;
    status: string | null;
    page_count: number | null;
    raw_text_length: number | null;
    total: number;
  }>(
    `select d.id, d.name, d.category, d.project_id, p.name as project_name, d.is_latest,
            e.status, e.page_count, e.raw_text_length, count(*) over ()::int as total
       from document d
       join project p on p.id = d.project_id
       left join extraction e on e.id = d.current_extraction_id
      where ${access.historical ? 'true' : 'd.is_latest'}
      order by d.id
      limit ${DOCUMENT_LIBRARY_PAGE} offset $1`,
    [offset],
  );
  return {
    data: rows.map((r) => ({
      documentId: r.id,
      name: r.name,
      category: r.category,
      projectId: r.project_id,
      projectName: r.project_name,
      isLatest: r.is_latest,
      extractionStatus: r.status ?? 'pending',
      pageCount: r.page_count ?? 0,
      rawTextLength: r.raw_text_length ?? 0,
    })),
    meta: { totalDocuments: rows[0]?.total ?? 0, includeHistorical: access.historical },
  };
}

/** One page of a document's extracted text. */
export interface DocumentPageView {
  documentId: number;
  pageNumber: number;
  text: string;
  /** Whether the page alone was longer than one read answers, and its text was cut. */
  truncated: boolean;
}

export interface DocumentTextView {
  document: LibraryDocumentView;
  pages: DocumentPageView[];
  /** The first page with text this answer did not include; null when it reached the end. */
  nextPage: number | null;
}

/** The bytes `text` takes written as a JSON string (escapes included), without its quotes. */
function jsonBytes(text: string): number {
  return Buffer.byteLength(JSON.stringify(text)) - 2;
}

/** The longest start of `text` that takes at most `bytes` written as JSON, never splitting a character. */
function cutToBytes(text: string, bytes: number): string {
  if (jsonBytes(text) <= bytes) return text;
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (jsonBytes(text.slice(0, mid)) <= bytes) low = mid;
    else high = mid - 1;
  }
  if (low > 0 && /[\uD800-\uDBFF]/.test(text[low - 1])) low--;
  return text.slice(0, low);
}

/**
 * A document's extracted text by page: `page` alone, or whole pages from the first until the next
 * would pass DOCUMENT_TEXT_BUDGET_BYTES as written in JSON (a page longer than that alone is cut
 * and flagged). An
 * older revision only on Elite; otherwise NOT_FOUND, as for its PDF.
 */
export async function documentText(
  em: EntityManager,
  access: DocumentIntelligenceAccess,
  input: { documentId: number; page?: number | null },
): Promise<DocumentTextView> {
  const documentId = parseId('documentId', input.documentId);
  const page = input.page ?? null;
  if (page !== null && (!Number.isInteger(page) || page < 1 || page > ENTITY_ID.max))
    throw badInput('page', 'must be a page number from 1');
  const query = await nativeQuery(em, 'read');
  const [doc] = await query<{
    id: number;
    name: string;
    category: string;
    project_id: number;
    project_name: string;
    is_latest: boolean;
    extraction_id: number | null;
    status: string | null;
    page_count: number | null;
    raw_text_length: number | null;
  }>(
    `select d.id, d.name, d.category, d.project_id, p.name as project_name, d.is_latest,
            d.current_extraction_id as extraction_id, e.status, e.page_count, e.raw_text_length
       from document d
       join project p on p.id = d.project_id
       left join extraction e on e.id = d.current_extraction_id
      where d.id = $1`,
    [documentId],
  );
  if (!doc || (!doc.is_latest && !access.historical))
    throw new AppError('NOT_FOUND', `document ${documentId} not found`, { subject: 'document' });
  const document: LibraryDocumentView = {
    documentId: doc.id,
    name: doc.name,
    category: doc.category,
    projectId: doc.project_id,
    projectName: doc.project_name,
    isLatest: doc.is_latest,
    extractionStatus: doc.status ?? 'pending',
    pageCount: doc.page_count ?? 0,
    rawTextLength: doc.raw_text_length ?? 0,
  };
  if (doc.extraction_id === null) return { document, pages: [], nextPage: null };
  const first = page ?? 1;
  const last = page ?? first + DOCUMENT_TEXT_MAX_PAGES - 1;
  const rows = await query<{ page_number: number; raw_text: string; text_hash: string }>(
    `select page_number, raw_text, text_hash from chunk
      where extraction_id = $1 and page_number between $2 and $3
      order by chunk_index`,
    [doc.extraction_id, first, last],
  );
  const rebuilt = rebuildPages(
    rows.map((r) => ({ pageNumber: r.page_number, rawText: r.raw_text, textHash: r.text_hash })),
  );
  const pages: DocumentPageView[] = [];
  let used = 0;
  let nextPage: number | null = null;
  for (const { pageNumber, text: full } of rebuilt) {
    const bytes = jsonBytes(full) + DOCUMENT_PAGE_OVERHEAD_BYTES;
    if (pages.length > 0 && used + bytes > DOCUMENT_TEXT_BUDGET_BYTES) {
      nextPage = pageNumber;
      break;
    }
    const text = cutToBytes(full, DOCUMENT_TEXT_BUDGET_BYTES - DOCUMENT_PAGE_OVERHEAD_BYTES);
    pages.push({ documentId, pageNumber, text, truncated: text.length < full.length });
    used += jsonBytes(text) + DOCUMENT_PAGE_OVERHEAD_BYTES;
  }
  if (nextPage === null) {
    // The next page with text past those considered, if any.
    const [after] = await query<{ page_number: number | null }>(
      'select min(page_number) as page_number from chunk where extraction_id = $1 and page_number > $2',
      [doc.extraction_id, last],
    );
    nextPage = after?.page_number ?? null;
  }
  return { document, pages, nextPage };
}
