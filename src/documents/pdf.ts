import { documentPdf, documentPdfBytes } from './documents.service.js';
import { DOCUMENT_PDF_PATH } from './pdf-link.js';

declare module '../context/context.js' {
  interface AppDeps {
    /** Documents' stored PDFs, lent to the route that serves them (facades/rest/pdf.routes.ts). */
    documentPdfs: DocumentPdfs;
  }
}

export interface DocumentPdfs {
  /** The route's path, with its `:documentId` parameter (the citations' links point there). */
  path: string;
  /** A document's PDF record, when the access may open it; NOT_FOUND otherwise. */
  find: typeof documentPdf;
  /** Bytes `start` to `end` (inclusive) of a document's PDF. */
  read: typeof documentPdfBytes;
}

export const documentPdfs: DocumentPdfs = {
  path: DOCUMENT_PDF_PATH,
  find: documentPdf,
  read: documentPdfBytes,
};
