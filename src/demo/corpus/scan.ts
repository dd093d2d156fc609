import type { Rng } from '../prng.js';
import { openDocument, PAGE } from './pdf-document.js';

/**
 * Scanned documents: the document's real pages (laid out with its text, tables and columns, so
 * the manifest's facts are the ground truth) photographed the way an office scanner would, at
 * 200 dpi in grey, with scan artifacts: low contrast, a soft focus on some documents, sensor
 * noise and specks, each page placed a little askew. The PDF keeps only the images, no text layer:
 * extraction has to read them with OCR.
 */

/** Scanner resolution: what office scanners default to for documents. */
const SCAN_DPI = 200;

/** Softens a grey image with a 3 × 3 box filter (an out-of-focus scan). */
function blur(pixels: Uint8ClampedArray, width: number, height: number, stride: number): void {
  const copy = Uint8ClampedArray.from(pixels);
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      let sum = 0;
      for (let dy = -1; dy <= 1; dy++) {
        const row = (y + dy) * stride + x;
        sum += copy[row - 1] + copy[row] + copy[row + 1];
      }
      pixels[y * stride + x] = sum / 9;
    }
  }
}

/** Paper and ink tones, noise and specks: the scanner's view of the page. */
function degrade(
  pixels: Uint8ClampedArray,
  width: number,
  height: number,
  stride: number,
  rng: Rng,
  look: { paper: number; ink: number; noise: number; specks: number },
): void {
  const range = (look.paper - look.ink) / 255;
  // Sensor noise from a table drawn once and read at a hashed position per pixel: one draw per
  // pixel would take most of the corpus's generation time.
  const noise = Float32Array.from({ length: 65_536 }, () => (rng.next() - 0.5) * 2 * look.noise);
  const offset = rng.int(0, 65_535);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * stride + x;
      pixels[i] = look.ink + pixels[i] * range + noise[(Math.imul(i + offset, 2654435761) >>> 16) & 0xffff];
    }
  }
  for (let s = 0; s < look.specks; s++) {
    const x = rng.int(0, width - 3);
    const y = rng.int(0, height - 3);
    const tone = rng.int(look.ink, look.paper - 40);
    const size = rng.int(1, 2);
    for (let dy = 0; dy < size; dy++)
      for (let dx = 0; dx < size; dx++) pixels[(y + dy) * stride + x + dx] = tone;
  }
}

/**
 * Turns a rendered text PDF into a scan of it: every page rasterized by MuPDF, degraded, stored
 * as a JPEG (what scanners write) and drawn full-page, slightly rotated.
 */
export async function renderScannedPdf(
  info: { title: string; author: string; date: Date },
  textPdf: Uint8Array,
  rng: Rng,
): Promise<Buffer> {
  const mupdf = await import('mupdf');
  const source = mupdf.Document.openDocument(textPdf, 'application/pdf');
  // One look per document (one scanner, one setting); the angle changes with each sheet fed.
  const look = {
    paper: rng.int(215, 240),
    ink: rng.int(40, 95),
    noise: rng.int(6, 16),
    specks: rng.int(300, 1500),
  };
  const soft = rng.chance(0.5);
  const { doc, done } = openDocument(info);
  try {
    for (let n = 0; n < source.countPages(); n++) {
      // The demo generates its corpus while the server answers: a page at a time, between requests.
      if (n > 0) await new Promise((resolve) => setImmediate(resolve));
      const page = source.loadPage(n);
      const scale = SCAN_DPI / 72;
      const pixmap = page.toPixmap(mupdf.Matrix.scale(scale, scale), mupdf.ColorSpace.DeviceGray, false);
      const [width, height, stride] = [pixmap.getWidth(), pixmap.getHeight(), pixmap.getStride()];
      const pixels = pixmap.getPixels();
      if (soft) blur(pixels, width, height, stride);
      degrade(pixels, width, height, stride, rng, look);
      const jpeg = Buffer.from(pixmap.asJPEG(rng.int(55, 80)));
      pixmap.destroy();
      page.destroy();
      doc.addPage({ size: 'LETTER', margin: 0 });
      doc.save();
      doc.rotate(rng.float(-0.8, 0.8), { origin: [PAGE.width / 2, PAGE.height / 2] });
      doc.image(jpeg, 0, 0, { width: PAGE.width, height: PAGE.height });
      doc.restore();
    }
  } finally {
    source.destroy();
    doc.end();
  }
  return done;
}
