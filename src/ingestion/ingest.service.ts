import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CATEGORIES, type Category } from '../enums.js';
import { DocumentSchema, ExtractionSchema, type Extraction } from '../documents/document.entity.js';
import { extractionView, type DocumentView, type ExtractionView } from '../documents/documents.service.js';
import { AppError, badInput } from '../errors/catalogue.js';
import { chunkPages, type ChunkDraft } from '../search/text/chunk.js';
import { vocabularyOf } from '../search/text/compounds.js';
import { NORMALIZER_VERSION } from '../search/text/normalize.js';
import { optionalText, parseId, requireOneOf, requireText } from '../errors/validate.js';
import { nativePool, nativeQuery, onConnection, type NativeClient } from '../db/native.js';
import type { ExtractionResult } from './extract.js';
import type { ExtractionQueue } from './queue.js';

export interface UploadInput {
  projectId: number;
  category: string;
  name: string;
  type?: string | null;
  /** The PDF bytes (already decoded from base64 by the caller). */
  content: Uint8Array;
  /** How the caller named the content in its request, for error messages (default `contentBase64`). */
  contentField?: string;
  supersedesDocumentId?: number | null;
}

export interface UploadOutcome {
  document: DocumentView;
  /** The extraction to queue: the new one, or a stored duplicate's unfinished one; null when there is nothing to run. */
  extractionId: number | null;
  duplicate: boolean;
}

/** Decodes strict base64 (standard or URL-safe alphabet); anything else is the caller's bad input. */
export function decodeBase64Pdf(field: string, text: string, maxBytes: number): Uint8Array {
  const clean = text.replace(/\s+/g, '');
  if (clean.length === 0) throw badInput(field, 'is empty');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(clean) || clean.length % 4 === 1)
    throw badInput(field, 'must be base64');
  if (Math.floor((clean.length * 3) / 4) > maxBytes + 2) {
    throw badInput(field, `is larger than the ${maxBytes}-byte upload limit`);
  }
  return Buffer.from(clean, clean.includes('-') || clean.includes('_') ? 'base64url' : 'base64');
}

export function assertPdf(field: string, bytes: Uint8Array, maxBytes: number): void {
  if (bytes.length === 0) throw badInput(field, 'is empty');
  if (bytes.length > maxBytes) throw badInput(field, `is larger than the ${maxBytes}-byte upload limit`);
  // A PDF starts with %PDF- within its first 1024 bytes (ISO 32000 tolerates leading junk).
  const head = Buffer.from(bytes.subarray(0, 1024)).toString('latin1');
  if (!head.includes('%PDF-')) throw badInput(field, 'is not a PDF (no %PDF- header)');
}

/** A stored document's row as the upload reads it back (a duplicate). */
interface DocumentRow {
  id: number;
  project_id: number;
  name: string;
  category: string;
  type: string | null;
  is_latest: boolean;
  byte_size: number;
  content_hash: string;
  created_at: Date;
  supersedes_id: number | null;
  current_extraction_id: number | null;
  unfinished: number | null;
}

/**
 * Stores a PDF and creates its first extraction (pending). The same bytes uploaded again to the
 * same project return the stored document. A superseding upload makes the old revision historical.
 * Everything is validated before anything is written; the writes are ONE statement (the document,
 * its extraction and the superseded revision's flag), so they commit together or not at all, and
 * an upload costs two round trips whatever the caller's identity map holds.
 */
export async function uploadDocument(
  em: EntityManager,
  input: UploadInput,
  maxBytes: number,
): Promise<UploadOutcome> {
  const name = requireText('name', input.name, 300);
  const category = requireOneOf<Category>('category', CATEGORIES, input.category);
  const type = optionalText('type', input.type, 100);
  assertPdf(input.contentField ?? 'contentBase64', input.content, maxBytes);
  const projectId = parseId('projectId', input.projectId);
  const supersedesId =
    input.supersedesDocumentId === null || input.supersedesDocumentId === undefined
      ? null
      : parseId('supersedesDocumentId', input.supersedesDocumentId);
  // The driver's pool with bound parameters: the PDF travels as binary, not as hex the ORM would
  // format into the SQL text on the event loop.
  const query = await nativeQuery(em);
  const [found] = await query<{ project: boolean; supersedes_project: number | null }>(
    `select exists (select 1 from project where id = $1) as project,
            (select project_id from document where id = $2) as supersedes_project`,
    [projectId, supersedesId],
  );
  if (!found.project) throw badInput('projectId', `no project with id ${projectId}`);
  if (supersedesId !== null) {
    if (found.supersedes_project === null)
      throw badInput('supersedesDocumentId', `no document with id ${supersedesId}`);
    if (found.supersedes_project !== projectId) {
      throw badInput('supersedesDocumentId', `document ${supersedesId} belongs to another project`);
    }
  }
  const contentHash = createHash('sha256').update(input.content).digest('hex');
  // A duplicate's conflicting upload may roll back between the insert and the read: try again.
  for (let attempt = 0; ; attempt++) {
    // Ids first, so the document can point at its extraction in the same statement (foreign keys are
    // checked at its end). A duplicate (same bytes, same project) inserts nothing.
    const [created] = await query<{ id: number; extraction_id: number; created_at: Date }>(
      `with ids as (
       select nextval(pg_get_serial_sequence('document', 'id')) as document_id,
              nextval(pg_get_serial_sequence('extraction', 'id')) as extraction_id),
     doc as (
       insert into document (id, project_id, name, category, type, supersedes_id, is_latest, content_hash,
                             byte_size, content, current_extraction_id, created_at)
       select document_id, $1, $2, $3, $4, $5, true, $6, $7, $8, extraction_id, now() from ids
       on conflict (project_id, content_hash) do nothing
       returning id, current_extraction_id, created_at),
     ext as (
       insert into extraction (id, document_id, status, created_at)
       select current_extraction_id, id, 'pending', now() from doc returning id),
     superseded as (
       update document set is_latest = false where id = $5 and exists (select 1 from doc) returning id)
     select doc.id, doc.current_extraction_id as extraction_id, doc.created_at from doc`,
      [
        projectId,
        name,
        category,
        type,
        supersedesId,
        contentHash,
        input.content.length,
        Buffer.from(input.content.buffer, input.content.byteOffset, input.content.byteLength),
      ],
    );
    if (created) {
      return {
        document: {
          id: created.id,
          projectId,
          name,
          category,
          type,
          isLatest: true,
          byteSize: input.content.length,
          contentHash,
          createdAt: new Date(created.created_at),
          supersedesId,
          currentExtractionId: created.extraction_id,
        },
        extractionId: created.extraction_id,
        duplicate: false,
      };
    }
    // A stored document whose extraction never finished (its queueing failed, say) is queued again.
    const [existing] = await query<DocumentRow>(
      `select d.id, d.project_id, d.name, d.category, d.type, d.is_latest, d.byte_size, d.content_hash, d.created_at,
            d.supersedes_id, d.current_extraction_id,
            (select e.id from extraction e where e.document_id = d.id and e.status in ('pending', 'processing')
              order by e.id desc limit 1) as unfinished
       from document d where d.project_id = $1 and d.content_hash = $2`,
      [projectId, contentHash],
    );
    if (!existing) {
      if (attempt < 2) continue;
      throw new AppError('CONFLICT', 'The same document was being uploaded at the same time: try again');
    }
    return {
      document: {
        id: existing.id,
        projectId: existing.project_id,
        name: existing.name,
        category: existing.category,
        type: existing.type,
        isLatest: existing.is_latest,
        byteSize: existing.byte_size,
        contentHash: existing.content_hash,
        createdAt: new Date(existing.created_at),
        supersedesId: existing.supersedes_id,
        currentExtractionId: existing.current_extraction_id,
      },
      extractionId: existing.unfinished,
      duplicate: true,
    };
  }
}

/**
 * Upload, then enqueue: the one path of the GraphQL mutation, the streaming PUT route, the
 * `ingest` CLI and the demo seed. A duplicate (same bytes, same project) queues nothing.
 */
export async function uploadAndQueue(
  em: EntityManager,
  queue: Pick<ExtractionQueue, 'enqueue'>,
  input: UploadInput,
  maxBytes: number,
): Promise<UploadOutcome> {
  const outcome = await uploadDocument(em, input, maxBytes);
  if (outcome.extractionId) await queue.enqueue(outcome.extractionId);
  return outcome;
}

/**
 * Starts a re-index and queues it: a new extraction beside the current one, switched to only when
 * it completes. The one path of the GraphQL mutation and the `reindex` CLI.
 */
export async function reindexAndQueue(
  em: EntityManager,
  queue: Pick<ExtractionQueue, 'enqueue'>,
  documentId: number,
): Promise<ExtractionView> {
  const extraction = await reindexDocument(em, documentId);
  await queue.enqueue(extraction.id);
  return extractionView(extraction);
}

async function reindexDocument(em: EntityManager, documentId: number): Promise<Extraction> {
  const id = parseId('documentId', documentId);
  const document = await em.findOne(DocumentSchema, { id });
  if (!document) throw badInput('documentId', `no document with id ${id}`);
  const busy = await em.count(ExtractionSchema, { document, status: { $in: ['pending', 'processing'] } });
  if (busy && document.currentExtraction) {
    const current = await em.findOne(ExtractionSchema, { id: document.currentExtraction.id });
    if (current && current.status !== 'pending' && current.status !== 'processing') {
      throw new AppError('CONFLICT', `document ${id} is already being re-indexed`);
    }
  }
  const extraction = em.create(ExtractionSchema, { document, status: 'pending' });
  await em.flush();
  return extraction;
}

export type Extractor = (bytes: Uint8Array) => Promise<ExtractionResult>;

/** The chunk columns a statement binds per row, after the three the rows share ($1-$3). */
const CHUNK_ROW = ['int', 'int', 'text', 'text', 'tsvector', 'text', 'real'] as const;

/**
 * `(…), (…)` rows of chunks: `owner` is the extraction, document and project columns every row
 * shares (parameters already in `params`); each row's own values are appended to `params`.
 */
function chunkRows(drafts: ChunkDraft[], params: unknown[], owner: string): string {
  return drafts
    .map((c) => {
      params.push(
        c.chunkIndex,
        c.pageNumber,
        c.rawText,
        c.searchText,
        c.searchVector,
        c.pageTextHash,
        c.ocrConfidence ?? null,
      );
      const first = params.length - CHUNK_ROW.length + 1;
      return `(${owner}, ${CHUNK_ROW.map((type, i) => `$${first + i}::${type}`).join(', ')})`;
    })
    .join(', ');
}

const CHUNK_COLUMNS =
  'extraction_id, document_id, project_id, chunk_index, page_number, raw_text, search_text, search_vector, text_hash, ocr_confidence';

/** What the commit of an extraction's outcome writes, with the chunks it inserts itself. */
interface Outcome {
  extractionId: number;
  documentId: number;
  projectId: number;
  status: Extraction['status'];
  result: ExtractionResult;
  /** Delete the chunks an earlier attempt of this extraction left (a manual re-run). */
  retry: boolean;
  /** The chunks this statement inserts (the last batch, or all of them). */
  drafts: ChunkDraft[];
  /** The words of every chunk of the extraction, for the index's vocabulary. */
  words: string[];
}

/**
 * The commit of an extraction's outcome as ONE statement: the status, the chunks, the vocabulary,
 * the document's switch to this extraction and the previous extraction's chunks gone. Every part
 * waits on the extraction's row and writes only while that row is still pending or processing: a
 * second delivery of the same job (a worker thought dead, still running) that commits after the
 * first writes nothing, so chunks are never committed twice. Its one row's `written` is 0 then.
 *
 * The document's switch: when this extraction completed, or when what search reads now is not a
 * completed one; a failed re-index leaves a completed extraction in place.
 */
function commitStatement(o: Outcome): { text: string; values: unknown[] } {
  const r = o.result;
  const values: unknown[] = [o.extractionId, o.documentId];
  const at = (value: unknown) => `$${values.push(value)}`;
  const rows = o.drafts.length
    ? chunkRows(o.drafts, values, `$1::int, $2::int, ${at(o.projectId)}::int`)
    : '';
  const status = at(o.status);
  const text = `with ext as (
      update extraction set status = ${status}, method = ${at(r.method)}, extractor_version = ${at(r.extractorVersion)},
             normalizer_version = ${at(NORMALIZER_VERSION)}, page_count = ${at(r.pageCount)},
             raw_text_length = ${at(r.rawTextLength)}, error = ${at(r.error)},
             indexed_at = case when ${status} = 'completed' then now() end
       where id = $1 and status in ('pending', 'processing')
      returning id),
    ${o.retry ? 'retry as (delete from chunk where extraction_id = $1 and exists (select 1 from ext)),' : ''}
    ${rows ? `ins as (insert into chunk (${CHUNK_COLUMNS}) select * from (values ${rows}) v where exists (select 1 from ext)),` : ''}
    voc as (insert into search_vocabulary (word)
            select distinct w from json_array_elements_text(${at(JSON.stringify(o.words))}::json) w
             where exists (select 1 from ext)
            on conflict do nothing),
    cur as (select d.current_extraction_id as previous, e.status as previous_status
              from document d left join extraction e on e.id = d.current_extraction_id
             where d.id = $2 and exists (select 1 from ext) for update of d),
    sw as (update document d set current_extraction_id = $1 from cur
            where d.id = $2 and cur.previous is distinct from $1
              and (${status} = 'completed' or cur.previous_status is distinct from 'completed')
           returning cur.previous),
    old as (delete from chunk where extraction_id = (select previous from sw))
    select count(*)::int as written from ext`;
  return { text, values };
}

/**
 * Up to 200 chunks or ~256 kB of text per statement: the statement travels as one message, and a
 * long document's chunks as several statements in one transaction.
 */
function* insertBatches(drafts: ChunkDraft[]): Generator<ChunkDraft[]> {
  let batch: ChunkDraft[] = [];
  let chars = 0;
  for (const draft of drafts) {
    batch.push(draft);
    chars += draft.rawText.length + draft.searchText.length + draft.searchVector.length;
    if (batch.length === 200 || chars >= 256 * 1024) {
      yield batch;
      batch = [];
      chars = 0;
    }
  }
  if (batch.length) yield batch;
}

/**
 * Runs one extraction to its end state. Idempotent: a finished extraction is left alone, and the
 * chunks, the status and the document's switch to this extraction are committed together, so a
 * worker killed at any point leaves no partial or duplicate chunks behind; the retry simply starts
 * over. A re-index that fails keeps the previous extraction searchable.
 *
 * Round trips: the claim, then one statement for a document of up to one batch of chunks (most
 * documents), else a transaction of one insert per batch and that statement. Both go to the
 * driver's pool with bound parameters: the ORM would format every value, the PDF and the chunks'
 * text included, into the SQL text on the event loop.
 */
export async function processExtraction(
  em: EntityManager,
  extractionId: number,
  extract: Extractor,
  hooks: { beforeCommit?: () => Promise<void> } = {},
): Promise<Extraction['status'] | 'missing'> {
  const pool = await nativePool(em);
  // Claim and read the PDF: one statement; a finished extraction is left alone (idempotent re-delivery).
  const { rows: claimed } = await pool.query<{
    document_id: number;
    project_id: number;
    content: Uint8Array;
    attempts: number;
  }>(
    `update extraction e set status = 'processing', attempts = e.attempts + 1
       from document d
      where e.id = $1 and e.status in ('pending', 'processing') and d.id = e.document_id
      returning e.document_id, e.attempts, d.project_id, d.content`,
    [extractionId],
  );
  if (!claimed.length) return currentStatus(pool, extractionId);
  const [doc] = claimed;
  const result = await extract(new Uint8Array(doc.content));
  // The extractor process normally chunks; pages are chunked here only for an extractor that did not.
  const drafts = result.status === 'completed' ? (result.chunks ?? chunkPages(result.pages)) : [];
  const status = result.status === 'completed' && drafts.length === 0 ? 'no_text' : result.status;
  const batches = [...insertBatches(drafts)];
  const outcome: Outcome = {
    extractionId,
    documentId: doc.document_id,
    projectId: doc.project_id,
    status,
    result,
    // Chunks of an earlier attempt of this extraction cannot have been committed (the commit ends
    // its pending state); this guards a manual re-run. A first attempt has none.
    retry: doc.attempts > 1,
    drafts: batches.at(-1) ?? [],
    // The index's vocabulary (compound splitting asks it which words the documents use): the
    // extractor's, which worked it out with the chunks, else from the chunks here.
    words: result.words ?? vocabularyOf(drafts.map((d) => d.searchText)),
  };
  let written: boolean;
  if (batches.length <= 1 && !hooks.beforeCommit) {
    const { text, values } = commitStatement(outcome);
    written = (await pool.query<{ written: number }>(text, values)).rows[0].written > 0;
  } else {
    written = await commitInTransaction(pool, outcome, batches.slice(0, -1), hooks.beforeCommit);
  }
  return written ? status : currentStatus(pool, extractionId);
}

/**
 * The commit for a document of several batches of chunks (or under a test's hook): the
 * extraction's row is locked first, so that a second delivery waits and then finds it finished.
 */
async function commitInTransaction(
  pool: NativeClient,
  outcome: Outcome,
  earlier: ChunkDraft[][],
  beforeCommit?: () => Promise<void>,
): Promise<boolean> {
  return onConnection(pool, async (client) => {
    await client.query('begin');
    const { rows: open } = await client.query(
      `select 1 from extraction where id = $1 and status in ('pending', 'processing') for update`,
      [outcome.extractionId],
    );
    if (!open.length) {
      await client.query('rollback');
      return false;
    }
    if (outcome.retry)
      await client.query('delete from chunk where extraction_id = $1', [outcome.extractionId]);
    for (const batch of earlier) {
      const values: unknown[] = [outcome.extractionId, outcome.documentId, outcome.projectId];
      const rows = chunkRows(batch, values, '$1::int, $2::int, $3::int');
      await client.query(`insert into chunk (${CHUNK_COLUMNS}) values ${rows}`, values);
    }
    const { text, values } = commitStatement({ ...outcome, retry: false });
    await client.query(text, values);
    await beforeCommit?.();
    await client.query('commit');
    return true;
  });
}

async function currentStatus(
  pool: NativeClient,
  extractionId: number,
): Promise<Extraction['status'] | 'missing'> {
  const { rows } = await pool.query<{ status: Extraction['status'] }>(
    'select status from extraction where id = $1',
    [extractionId],
  );
  return rows[0]?.status ?? 'missing';
}

/** An extraction that failed this often without reaching an end state is not queued again by reconciliation. */
export const MAX_EXTRACTION_ATTEMPTS = 20;

/** Extractions left pending or processing (a process stopped, queueing failed); reconciliation re-delivers those without a live job. */
export async function unfinishedExtractions(em: EntityManager): Promise<number[]> {
  const rows = await em.find(
    ExtractionSchema,
    { status: { $in: ['pending', 'processing'] }, attempts: { $lt: MAX_EXTRACTION_ATTEMPTS } },
    { fields: ['id'], orderBy: { id: 'asc' } },
  );
  return rows.map((r) => r.id);
}
