import PDFDocument from 'pdfkit';
import { createRng } from '../../src/demo/prng.js';
import { renderScannedPdf } from '../../src/demo/corpus/scan.js';
import { makePdf } from './pdf.js';

/**
 * Scans for the OCR tests, made the way the demo corpus makes them: real text laid out by pdfkit,
 * rasterized by MuPDF, degraded (noise, specks, low contrast) and stored as page images only.
 */
export async function scannedPdf(pages: string[], seed = 1): Promise<Buffer> {
  const info = { title: 'Scan', author: 'Tests', date: new Date('2026-01-01T00:00:00Z') };
  return renderScannedPdf(info, await makePdf(pages), createRng(seed));
}

/** One page of text as a grey JPEG at `dpi`, as a scanner would store it, and its pixel size. */
export async function pageJpeg(
  text: string,
  dpi = 150,
): Promise<{ jpeg: Buffer; width: number; height: number }> {
  const mupdf = await import('mupdf');
  const doc = mupdf.Document.openDocument(await makePdf([text]), 'application/pdf');
  const page = doc.loadPage(0);
  const pixmap = page.toPixmap(mupdf.Matrix.scale(dpi / 72, dpi / 72), mupdf.ColorSpace.DeviceGray, false);
  const out = { jpeg: Buffer.from(pixmap.asJPEG(75)), width: pixmap.getWidth(), height: pixmap.getHeight() };
  pixmap.destroy();
  page.destroy();
  doc.destroy();
  return out;
}

/**
 * A PDF of pages that each may paint an image over a box and carry real text: `image` fills the
 * page (a scan) or the lower half (a photo); `text` is written at the top in 11 pt.
 */
export async function composedPdf(
  pages: { image?: Buffer; imageBox?: 'page' | 'lower-half'; text?: string }[],
): Promise<Buffer> {
  const doc = new PDFDocument({ autoFirstPage: false, size: 'LETTER', margin: 0 });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve) => doc.on('end', () => resolve()));
  for (const p of pages) {
    doc.addPage({ size: 'LETTER', margin: 0 });
    if (p.image) {
      if (p.imageBox === 'lower-half') doc.image(p.image, 72, 396, { width: 468, height: 324 });
      else doc.image(p.image, 0, 0, { width: 612, height: 792 });
    }
    if (p.text) doc.fontSize(11).text(p.text, 72, 40, { width: 468 });
  }
  doc.end();
  await done;
  return Buffer.concat(chunks);
}
