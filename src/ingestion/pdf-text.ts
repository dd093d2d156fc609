/**
 * Page text from pdf.js, under limits, and the result shape every extraction path returns. Used
 * in the extractor child process (extract.child.ts) and by the benchmark's in-process baseline.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { getDocumentProxy } from 'unpdf';
import type { ChunkDraft, PageText } from '../search/text/chunk.js';

export type ExtractionOutcome = 'completed' | 'no_text' | 'failed';

export interface ExtractionResult {
  status: ExtractionOutcome;
  method: string;
  extractorVersion: string;
  pageCount: number;
  /** Per-page text; empty when `chunks` were asked for (the text then travels once, as chunks). */
  pages: PageText[];
  /** The pages normalized and chunked by the extractor (`chunk: true`), so the caller's thread does not. */
  chunks?: ChunkDraft[];
  /** With `chunks`: the words of their search text (`vocabularyOf`), also worked out off the caller's thread. */
  words?: string[];
  rawTextLength: number;
  /** Readable reason for `failed`: corrupt, encrypted, timed out, exceeded memory, over a limit. */
  error: string | null;
}

/** What a document may cost before it fails: checked while reading, so a hostile file stops early. */
export interface TextLimits {
  /** Documents claiming more pages fail without a page being read. */
  maxPages: number;
  /** Indirect objects (object headers plus the objects packed in object streams), counted before parsing. */
  maxObjects: number;
  /** Characters of extracted text over all pages. */
  maxTextChars: number;
}

const require = createRequire(import.meta.url);
const UNPDF_VERSION = (
  JSON.parse(readFileSync(join(dirname(require.resolve('unpdf')), '..', 'package.json'), 'utf8')) as {
    version: string;
  }
).version;
export const EXTRACTION_METHOD = `unpdf-${UNPDF_VERSION}`;
/** Bump the suffix when the text assembled from pdf.js changes (line ends, spacing). */
export const EXTRACTOR_VERSION = `${EXTRACTION_METHOD}+pages-v2`;

/** A page needs a few letters or digits to count as text; scanned pages yield none. */
const USABLE = /[\p{L}\p{N}]{2}/u;

/**
 * `extraction_method` of a document whose text came from OCR on every page that has text; one
 * with pages of both kinds says `${EXTRACTION_METHOD}+ocr` (OCR_MIXED_METHOD).
 */
export const OCR_METHOD = 'ocr';
export const OCR_MIXED_METHOD = `${EXTRACTION_METHOD}+ocr`;

/**
 * The result of a read document. `ocr`: how many of its pages' text came from OCR, and the
 * recognizer's version (kept in `extractorVersion`, so a re-index after an upgrade is visible).
 */
export function completed(
  pages: string[] | PageText[],
  pageCount: number,
  ocr: { pages: number; version: string } = { pages: 0, version: '' },
): ExtractionResult {
  const list = pages.map((page, i): PageText =>
    typeof page === 'string' ? { pageNumber: i + 1, text: page } : page,
  );
  const withText = list.filter((p) => USABLE.test(p.text)).length;
  let method = EXTRACTION_METHOD;
  if (ocr.pages > 0) method = ocr.pages >= withText ? OCR_METHOD : OCR_MIXED_METHOD;
  return {
    status: withText > 0 ? 'completed' : 'no_text',
    method,
    extractorVersion: ocr.pages > 0 ? `${EXTRACTOR_VERSION}+tesseract.js-${ocr.version}` : EXTRACTOR_VERSION,
    pageCount,
    pages: list,
    rawTextLength: list.reduce((n, p) => n + p.text.length, 0),
    error: null,
  };
}

export function failed(error: string): ExtractionResult {
  return {
    status: 'failed',
    method: EXTRACTION_METHOD,
    extractorVersion: EXTRACTOR_VERSION,
    pageCount: 0,
    pages: [],
    rawTextLength: 0,
    error,
  };
}

/** A document over one of the `TextLimits`; the message is the reason shown to the operator. */
export class LimitError extends Error {
  override name = 'LimitError';
}

/**
 * An allocation refused inside the extractor (the OS data limit reached by a buffer, not the V8
 * heap). A WebAssembly module (MuPDF, Tesseract) whose memory cannot grow under the limit aborts
 * (`RuntimeError: Aborted()`): its instance is then unusable, so the extractor ends as for any
 * refused allocation (an image decompression bomb ends so under 256 MB and decodes under 2 GB).
 */
export function isAllocationFailure(name: string, message: string): boolean {
  return (
    /allocation failed|out of memory/i.test(message) ||
    (name === 'RangeError' && /Invalid (typed )?array length/i.test(message)) ||
    (name === 'RuntimeError' && /^Aborted\(/.test(message))
  );
}

/** pdf.js names its exceptions; turn them into reasons a person (or a model) can act on. */
export function reason(name: string, message: string): string {
  if (name === 'PasswordException') return 'encrypted PDF (password required)';
  if (name === 'LimitError' || name === 'OcrError') return message;
  if (name === 'InvalidPDFException') return `corrupt PDF: ${message.replace(/\.$/, '')}`;
  return `corrupt PDF: ${name === 'Error' ? '' : `${name}: `}${message.slice(0, 300)}`;
}

const OBJECT_HEADER = /(?:^|[^0-9])\d{1,10}[ \t\r\n\f\0]+\d{1,5}[ \t\r\n\f\0]+obj\b/g;
const OBJECT_STREAM = /\/Type\s*\/ObjStm\b/g;

/**
 * Indirect objects in the file: `N G obj` headers, plus the `/N` objects each object stream
 * declares. Counted on the raw bytes before pdf.js parses anything.
 */
export function countObjects(bytes: Uint8Array): number {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  let count = 0;
  for (const _ of text.matchAll(OBJECT_HEADER)) count++;
  for (const m of text.matchAll(OBJECT_STREAM)) {
    // The stream's dictionary surrounds the /Type entry; its /N is nearby in either direction.
    const around = text.slice(Math.max(0, m.index - 400), m.index + 400);
    const n = /\/N\s+(\d{1,10})\b/.exec(around);
    if (n) count += Number(n[1]);
  }
  return count;
}

interface TextPiece {
  str?: string;
  hasEOL?: boolean;
  width?: number;
  height?: number;
}

/**
 * pdf.js keeps the spaces of flowing text inside a piece's string and gives a gap wider than any
 * word space (its own limit is 0.6 em) a piece of its own, a blank as wide as the gap. A blank at
 * least half an em wide between two pieces on one line is a column gap, written as a tab, so the
 * normalizer can tell a table's columns from a space inside a number (src/search/text/normalize.ts,
 * "How numbers are read"): `Unit 12` ⇥ `450 sq ft`.
 */
const COLUMN_GAP_EM = 0.5;

function pageText(items: TextPiece[]): string {
  let text = '';
  let fontSize = 0;
  for (const item of items) {
    if (typeof item.str !== 'string') continue;
    const blank = item.str.trim() === '' && item.str !== '';
    if (!blank && item.height) fontSize = item.height;
    const gap = blank && fontSize > 0 && (item.width ?? 0) >= COLUMN_GAP_EM * fontSize;
    text += (gap ? '\t' : item.str) + (item.hasEOL ? '\n' : '');
  }
  return text;
}

/**
 * Per-page text with pdf.js's own line ends (`hasEOL`) kept as `\n`, so the chunker can overlap
 * at line boundaries and the normalizer can join words hyphenated across a line end, and column
 * gaps as tabs (`pageText`). Pages are
 * read one at a time: a document claiming a million pages fails on the count, not on memory.
 */
export async function extractPages(
  bytes: Uint8Array,
  limits: TextLimits,
): Promise<{ pageCount: number; pages: string[] }> {
  const objects = countObjects(bytes);
  if (objects > limits.maxObjects) {
    throw new LimitError(
      `too many objects: the PDF has ${objects} objects, more than the ${limits.maxObjects} allowed`,
    );
  }
  const pdf = await getDocumentProxy(bytes, { verbosity: 0, useSystemFonts: false });
  try {
    const pageCount = pdf.numPages;
    if (pageCount > limits.maxPages) {
      throw new LimitError(
        `too many pages: the PDF claims ${pageCount} pages, more than the ${limits.maxPages} allowed`,
      );
    }
    const pages: string[] = [];
    let chars = 0;
    for (let pageNumber = 1; pageNumber <= pageCount; pageNumber++) {
      const page = await pdf.getPage(pageNumber);
      const content = await page.getTextContent();
      const text = pageText(content.items as TextPiece[]);
      page.cleanup();
      chars += text.length;
      if (chars > limits.maxTextChars) {
        throw new LimitError(
          `too much text: more than the ${limits.maxTextChars} characters allowed (by page ${pageNumber})`,
        );
      }
      pages.push(text);
    }
    return { pageCount, pages };
  } finally {
    // unpdf's bundled pdf.js has no PDFDocumentProxy.destroy(); its loading task releases the document.
    await pdf.loadingTask.destroy();
  }
}

export function errorFields(error: unknown): { name: string; message: string } {
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}
