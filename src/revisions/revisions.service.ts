import type { EntityManager } from '@mikro-orm/postgresql';
import type { DocumentIntelligenceAccess } from '../auth/entitlements.js';
import { nativeQuery, type NativeQuery } from '../db/native.js';
import { AppError, badInput } from '../errors/catalogue.js';
import { parseId, validateRange } from '../errors/validate.js';
import { REVISION_CHANGES_LIMIT } from '../limits.js';
import { diffLines, type NumberChange } from './line-diff.js';
import { rebuildPages, type RebuiltPage } from './page-text.js';

/**
 * What differs between two revisions of a document (compare-document-revisions): the pages rebuilt
 * from their chunks, compared line by line, numbers that changed paired as before → after, each
 * change citing both sides. Reads history, so Elite only.
 */

export interface RevisionSideView {
  documentId: number;
  pageNumber: number;
  /** SHA-256 of the page's normalized text, as every stable citation. */
  textHash: string;
  text: string;
}

export interface RevisionChangeView {
  kind: 'added' | 'removed' | 'changed';
  pageNumber: number;
  before: RevisionSideView | null;
  after: RevisionSideView | null;
  numbers: NumberChange[];
}

export interface RevisionComparisonView {
  data: RevisionChangeView[];
  meta: {
    projectId: number;
    beforeDocumentId: number;
    afterDocumentId: number;
    pagesCompared: number;
    pagesChanged: number;
    totalChanges: number;
    returned: number;
    nextCursor: string | null;
  };
}

/** The longest line a change quotes; longer lines end with an ellipsis (the citation leads to the whole page). */
export const MAX_LINE_CHARS = 300;
/** Revisions followed back from a document when looking for the other one. */
const MAX_CHAIN = 1000;

interface RevisionRow {
  id: number;
  project_id: number;
  supersedes_id: number | null;
  current_extraction_id: number | null;
  status: string | null;
}

export async function compareDocumentRevisions(
  em: EntityManager,
  access: DocumentIntelligenceAccess,
  input: {
    documentId: number;
    otherDocumentId?: number | null;
    cursor?: string | null;
    limit?: number | null;
  },
): Promise<RevisionComparisonView> {
  if (!access.historical) {
    throw new AppError(
      'PLAN_UPGRADE_REQUIRED',
      'Comparing revisions reads older revisions of documents, which requires an Elite plan',
      { requiredPlans: ['elite'] },
    );
  }
  const documentId = parseId('documentId', input.documentId);
  const otherId =
    input.otherDocumentId === null || input.otherDocumentId === undefined
      ? null
      : parseId('otherDocumentId', input.otherDocumentId);
  const limit = validateRange('limit', input.limit, REVISION_CHANGES_LIMIT);
  const query = await nativeQuery(em, 'read');

  const chain = await ancestors(query, documentId);
  const doc = chain[0];
  if (!doc) throw new AppError('NOT_FOUND', `document ${documentId} not found`, { subject: 'document' });
  let older: RevisionRow;
  let newer: RevisionRow;
  if (otherId === null) {
    const previous = chain[1];
    if (!previous) {
      throw badInput(
        'documentId',
        `document ${documentId} replaces no older revision: name the other revision with otherDocumentId`,
      );
    }
    [older, newer] = [previous, doc];
  } else if (otherId === documentId) {
    throw badInput('otherDocumentId', 'must name another revision than documentId');
  } else {
    const inChain = chain.find((row) => row.id === otherId);
    if (inChain) {
      [older, newer] = [inChain, doc];
    } else {
      const otherChain = await ancestors(query, otherId);
      if (!otherChain[0]) {
        throw new AppError('NOT_FOUND', `document ${otherId} not found`, { subject: 'document' });
      }
      if (!otherChain.some((row) => row.id === documentId)) {
        throw badInput(
          'otherDocumentId',
          `documents ${documentId} and ${otherId} are not revisions of one document: neither replaces the other, directly or through other revisions`,
        );
      }
      [older, newer] = [doc, otherChain[0]];
    }
  }

  const offset = readCursor(input.cursor, older.id, newer.id);
  const [beforePages, afterPages] = await Promise.all([pagesOf(query, older), pagesOf(query, newer)]);
  const changes = compare(older.id, beforePages, newer.id, afterPages);
  const data = changes.list.slice(offset, offset + limit);
  const next = offset + data.length;
  return {
    data,
    meta: {
      projectId: newer.project_id,
      beforeDocumentId: older.id,
      afterDocumentId: newer.id,
      pagesCompared: changes.pagesCompared,
      pagesChanged: changes.pagesChanged,
      totalChanges: changes.list.length,
      returned: data.length,
      nextCursor: next < changes.list.length ? writeCursor(older.id, newer.id, next) : null,
    },
  };
}

/** The document and the revisions it replaces, newest first (the document itself first). */
async function ancestors(query: NativeQuery, documentId: number): Promise<RevisionRow[]> {
  return query<RevisionRow>(
    `with recursive chain as (
       select d.id, d.project_id, d.supersedes_id, d.current_extraction_id, 0 as depth
         from document d where d.id = $1
       union all
       select d.id, d.project_id, d.supersedes_id, d.current_extraction_id, chain.depth + 1
         from document d join chain on d.id = chain.supersedes_id
        where chain.depth < $2)
     select chain.id, chain.project_id, chain.supersedes_id, chain.current_extraction_id, e.status
       from chain left join extraction e on e.id = chain.current_extraction_id
      order by chain.depth`,
    [documentId, MAX_CHAIN],
  );
}

async function pagesOf(query: NativeQuery, doc: RevisionRow): Promise<RebuiltPage[]> {
  if (doc.status === 'no_text') return [];
  if (doc.status !== 'completed' || doc.current_extraction_id === null) {
    throw new AppError(
      'CONFLICT',
      `document ${doc.id} has no indexed text to compare yet (extraction ${doc.status ?? 'not started'}): try again once it is indexed`,
      { subject: 'document' },
    );
  }
  const rows = await query<{ page_number: number; raw_text: string; text_hash: string }>(
    'select page_number, raw_text, text_hash from chunk where extraction_id = $1 order by chunk_index',
    [doc.current_extraction_id],
  );
  return rebuildPages(
    rows.map((r) => ({ pageNumber: r.page_number, rawText: r.raw_text, textHash: r.text_hash })),
  );
}

function quote(line: string): string {
  return line.length <= MAX_LINE_CHARS ? line : `${line.slice(0, MAX_LINE_CHARS - 1)}…`;
}

function compare(
  beforeId: number,
  before: RebuiltPage[],
  afterId: number,
  after: RebuiltPage[],
): { list: RevisionChangeView[]; pagesCompared: number; pagesChanged: number } {
  const beforeByPage = new Map(before.map((p) => [p.pageNumber, p]));
  const afterByPage = new Map(after.map((p) => [p.pageNumber, p]));
  const pageNumbers = [...new Set([...beforeByPage.keys(), ...afterByPage.keys()])].sort((a, b) => a - b);
  const list: RevisionChangeView[] = [];
  let pagesChanged = 0;
  for (const pageNumber of pageNumbers) {
    const b = beforeByPage.get(pageNumber);
    const a = afterByPage.get(pageNumber);
    if (b && a && b.textHash === a.textHash) continue;
    const side = (documentId: number, page: RebuiltPage | undefined, text: string): RevisionSideView =>
      // A page that one revision lacks is cited at its number with no hash: there is no text to hash.
      ({ documentId, pageNumber, textHash: page?.textHash ?? '', text: quote(text) });
    const lines = diffLines(b?.text ?? '', a?.text ?? '');
    if (lines.length > 0) pagesChanged++;
    for (const line of lines) {
      switch (line.kind) {
        case 'removed':
          list.push({
            kind: 'removed',
            pageNumber,
            before: side(beforeId, b, line.before),
            after: null,
            numbers: [],
          });
          break;
        case 'added':
          list.push({
            kind: 'added',
            pageNumber,
            before: null,
            after: side(afterId, a, line.after),
            numbers: [],
          });
          break;
        case 'changed':
          list.push({
            kind: 'changed',
            pageNumber,
            before: side(beforeId, b, line.before),
            after: side(afterId, a, line.after),
            numbers: line.numbers,
          });
          break;
      }
    }
  }
  return { list, pagesCompared: pageNumbers.length, pagesChanged };
}

/**
 * A cursor is where the next page of one comparison starts, bound to the two documents. It carries
 * no secret and grants nothing: every call checks access again and recomputes the comparison.
 */
function writeCursor(beforeId: number, afterId: number, offset: number): string {
  return Buffer.from(`rev:${beforeId}:${afterId}:${offset}`, 'utf8').toString('base64url');
}

function readCursor(cursor: string | null | undefined, beforeId: number, afterId: number): number {
  if (cursor === null || cursor === undefined) return 0;
  const match = /^rev:(\d{1,10}):(\d{1,10}):(\d{1,9})$/u.exec(
    cursor.length <= 64 ? Buffer.from(cursor, 'base64url').toString('utf8') : '',
  );
  if (!match) throw badInput('cursor', 'is not a cursor this comparison returned: start again without one');
  if (Number(match[1]) !== beforeId || Number(match[2]) !== afterId) {
    throw badInput('cursor', 'belongs to a comparison of other documents: start again without one');
  }
  return Number(match[3]);
}
