/**
 * The PDF extractor process. The API (or worker) process starts a few of these with a hard
 * operating-system memory limit (RLIMIT_DATA, see extract.ts) and sends one document at a time
 * over IPC; pdf.js, normalization and chunking all run here. A document that needs more memory
 * than the limit gets its allocations refused and ends this process, never its parent.
 */
import { chunkPages, type ChunkDraft } from '../search/text/chunk.js';
import { vocabularyOf } from '../search/text/compounds.js';
import { mergeRecognized, needsOcr, recognizePages, TESSERACT_VERSION, type OcrSettings } from './ocr.js';
import {
  completed,
  errorFields,
  extractPages,
  failed,
  isAllocationFailure,
  LimitError,
  reason,
  type ExtractionResult,
  type TextLimits,
} from './pdf-text.js';

export interface ChildRequest {
  id: number;
  bytes: Uint8Array;
  limits: TextLimits;
  /** Normalize and chunk here, returning `chunks` instead of page texts. */
  chunk: boolean;
  /** Recognition of pages without a text layer (ocr.ts). */
  ocr: OcrSettings;
}

export type ChildReply =
  /** A batch of the chunks, in order, sent before the result they belong to. */
  | { id: number; chunks: ChunkDraft[] }
  /** Recognition has started on a page: what a timeout reports as how far the document got. */
  | { id: number; progress: string }
  /**
   * The end of a job; with `chunk`, `result.chunks` is empty and the batches before it are the
   * chunks. `rss` is this process's resident memory after the job, in bytes.
   */
  | { id: number; result: ExtractionResult; rss: number }
  /** The failure escaped the job or was a refused allocation: this process exits after sending it. */
  | { id: number; fatal: { name: string; message: string } };

/**
 * Chunks per message: one message for a whole 5 MB-text document would need one ~40 MB
 * serialization buffer here and one long deserialization on the parent's event loop.
 */
const BATCH = 250;

function send(reply: ChildReply): Promise<void> {
  return new Promise((resolve, reject) =>
    process.send!(reply, undefined, {}, (error) => (error ? reject(error) : resolve())),
  );
}

async function run(request: ChildRequest): Promise<ExtractionResult> {
  // pdf.js may take (detach) the buffer it reads; MuPDF reads its own copy.
  const forOcr = request.ocr.enabled ? request.bytes.slice() : null;
  const { pageCount, pages } = await extractPages(request.bytes, request.limits);
  const result = await withRecognition(forOcr, request, pages, pageCount);
  if (!request.chunk) return result;
  // The chunks carry the text; sending the pages too would double what crosses to the parent.
  const chunks = result.status === 'completed' ? chunkPages(result.pages) : [];
  result.pages = [];
  for (let i = 0; i < chunks.length; i += BATCH) {
    await send({ id: request.id, chunks: chunks.slice(i, i + BATCH) });
  }
  return { ...result, chunks: [], words: vocabularyOf(chunks.map((c) => c.searchText)) };
}

/**
 * The document's result with its pages without a text layer recognized (when OCR is on). The text
 * limit counts recognized text like any other.
 */
async function withRecognition(
  bytes: Uint8Array | null,
  request: ChildRequest,
  pages: string[],
  pageCount: number,
): Promise<ExtractionResult> {
  const thin = bytes ? pages.flatMap((text, i) => (needsOcr(text) ? [i + 1] : [])) : [];
  if (!bytes || thin.length === 0) return completed(pages, pageCount);
  const recognized = await recognizePages(bytes, thin, request.ocr, (pageNumber, index, of) => {
    void send({
      id: request.id,
      progress: `recognizing page ${pageNumber}, ${index + 1} of ${of} scanned pages`,
    });
  });
  const merged = mergeRecognized(pages, recognized);
  const chars = merged.pages.reduce((n, p) => n + p.text.length, 0);
  if (chars > request.limits.maxTextChars) {
    throw new LimitError(
      `too much text: more than the ${request.limits.maxTextChars} characters allowed (with recognized pages)`,
    );
  }
  return completed(merged.pages, pageCount, { pages: merged.ocrPages, version: TESSERACT_VERSION });
}

function serve(): void {
  let current = -1;
  // Refused allocations and escaped pdf.js rejections leave state nobody can trust: report, exit.
  const fatal = (error: unknown) => {
    void send({ id: current, fatal: errorFields(error) }).finally(() => process.exit(70));
  };
  process.on('unhandledRejection', fatal);
  process.on('uncaughtException', fatal);
  // The parent's death ends this process: extract.entry.ts watches for it from the start.
  process.on('message', (request: ChildRequest) => {
    current = request.id;
    const done = (result: ExtractionResult) =>
      send({ id: request.id, result, rss: process.memoryUsage.rss() });
    run(request)
      .then(done)
      .catch((error: unknown) => {
        const { name, message } = errorFields(error);
        // A failed recognition leaves the recognizer's memory in doubt, like a refused allocation.
        if (isAllocationFailure(name, message) || name === 'OcrError') fatal(error);
        else return done(failed(reason(name, message)));
      })
      .catch(fatal);
  });
}

serve();
