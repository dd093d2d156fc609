/**
 * The body of a PDF extraction worker thread, and the page-text routine it shares with the
 * in-process baseline. This file must stay self-contained (node built-ins and unpdf only, type
 * syntax that Node can strip): from source it runs through Node's type stripping, which resolves
 * no project imports.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { getDocumentProxy } from 'unpdf';

/** Marks the worker data of our threads, so importing this file elsewhere starts no listener. */
export const EXTRACTOR_ROLE = 'pdf-text-extractor';

export interface ExtractRequest {
  id: number;
  bytes: Uint8Array;
  maxPages: number;
}

export type ExtractReply =
  | { id: number; ok: true; pageCount: number; pages: string[] }
  /** `fatal`: the failure escaped the job (an unhandled rejection); the thread must be replaced. */
  | { id: number; ok: false; name: string; message: string; fatal: boolean };

export interface ExtractedPages {
  pageCount: number;
  pages: string[];
}

/** Thrown for a page count too large to attempt; pdf.js reads the claim from /Count. */
export class TooManyPagesError extends Error {
  override name = 'TooManyPagesError';
}

interface TextPiece {
  str?: string;
  hasEOL?: boolean;
}

/**
 * Per-page text with pdf.js's own line ends (`hasEOL`) kept as `\n`, so the chunker can overlap
 * at line boundaries and the normalizer can join words hyphenated across a line end. Pages are
 * read one at a time: a document claiming a million pages fails on the count, not on memory.
 */
export async function extractPages(bytes: Uint8Array, maxPages: number): Promise<ExtractedPages> {
  const pdf = await getDocumentProxy(bytes, { verbosity: 0, useSystemFonts: false });
  try {
    const pageCount = pdf.numPages;
    if (pageCount > maxPages) {
      throw new TooManyPagesError(`the PDF claims ${pageCount} pages, more than the ${maxPages} allowed`);
    }
    const pages: string[] = [];
    for (let pageNumber = 1; pageNumber <= pageCount; pageNumber++) {
      const page = await pdf.getPage(pageNumber);
      const content = await page.getTextContent();
      pages.push(
        (content.items as TextPiece[])
          .filter((item) => typeof item.str === 'string')
          .map((item) => item.str! + (item.hasEOL ? '\n' : ''))
          .join(''),
      );
      page.cleanup();
    }
    return { pageCount, pages };
  } finally {
    // unpdf's bundled pdf.js has no PDFDocumentProxy.destroy(); its loading task releases the document.
    await pdf.loadingTask.destroy();
  }
}

function errorFields(error: unknown): { name: string; message: string } {
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

function serve(port: NonNullable<typeof parentPort>): void {
  let current: number | null = null;
  // pdf.js rejects promises nobody awaits on some damaged files; such a failure belongs to the
  // job in progress, and the thread is replaced afterwards because its state is unknown.
  const escape = (error: unknown): void => {
    const reply: ExtractReply = { id: current ?? -1, ok: false, ...errorFields(error), fatal: true };
    port.postMessage(reply);
  };
  process.on('unhandledRejection', escape);
  process.on('uncaughtException', escape);
  port.on('message', (request: ExtractRequest) => {
    current = request.id;
    extractPages(request.bytes, request.maxPages).then(
      (result) => {
        const reply: ExtractReply = { id: request.id, ok: true, ...result };
        port.postMessage(reply);
      },
      (error: unknown) => {
        const reply: ExtractReply = { id: request.id, ok: false, ...errorFields(error), fatal: false };
        port.postMessage(reply);
      },
    );
  });
}

if (parentPort && (workerData as { role?: string } | null)?.role === EXTRACTOR_ROLE) serve(parentPort);
