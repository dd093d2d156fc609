/**
 * Optical character recognition of pages without a text layer, in the extractor process
 * (extract.child.ts): MuPDF (WebAssembly) renders a page to a grey bitmap, Tesseract (tesseract.js,
 * WebAssembly) reads it with language data from an npm package. Nothing is downloaded: the
 * language data is read from `langPath`, the engine from node_modules.
 *
 * Both libraries are loaded on the first page that needs them, so an extractor that only sees
 * documents with text never pays for them, and one recognizer is kept warm for later documents.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as Mupdf from 'mupdf';
import type { Worker as Recognizer } from 'tesseract.js';
import type { PageText, WordSpan } from '../search/text/chunk.js';
import { allowRecognizerThread } from './memory-limit.js';
import { errorFields, LimitError } from './pdf-text.js';

export interface OcrSettings {
  /** false: pages without text stay without text (the document is `no_text`). */
  enabled: boolean;
  /** Tesseract language codes joined by `+`, e.g. `eng` or `eng+fra`. */
  languages: string;
  /** Directory holding `<code>.traineddata.gz` for each language; null: the bundled English data. */
  langPath: string | null;
  /** Rendering resolution (dots per inch) of a page for recognition. */
  dpi: number;
  /** Pages of one document that may be recognized; a document needing more fails with the reason. */
  maxPages: number;
}

const require = createRequire(import.meta.url);

/** Recognition itself failed: the recognizer's state is not trusted after it (the extractor ends). */
export class OcrError extends Error {
  override name = 'OcrError';
}

/** The English data of `@tesseract.js-data/eng`: the LSTM model in integer form (fast, compact). */
export function bundledLangPath(): string {
  return join(dirname(require.resolve('@tesseract.js-data/eng')), '4.0.0_best_int');
}

export const TESSERACT_VERSION = (require('tesseract.js/package.json') as { version: string }).version;

/**
 * Pixels one rendered page may have: a letter page at 300 dpi has 8.4 million, A3 17.4 million.
 * A larger page (a poster, a hostile MediaBox of 200 inches a side) is rendered at the resolution that fits.
 */
export const MAX_PAGE_PIXELS = 20_000_000;

/**
 * Letters and digits a page's text layer needs before it counts as text. A scan often carries a
 * page number, a stamp or a file name as real text ("Page 3 of 12": 9); a page of prose has
 * hundreds, and a text page with a photo keeps its text and is not rendered.
 */
export const MIN_TEXT_LAYER_CHARS = 16;

const ALNUM = /[\p{L}\p{N}]/gu;

/** Whether a page's text layer is too thin to be the page's text: such a page is recognized. */
export function needsOcr(text: string): boolean {
  let count = 0;
  for (const _ of text.matchAll(ALNUM)) if (++count >= MIN_TEXT_LAYER_CHARS) return false;
  return true;
}

/**
 * Repairs of Tesseract's misreadings that are exact: they change a character only where no
 * reading but a number is possible.
 *
 * - `O`/`o` read for `0` and `l`/`I` for `1` inside a number: a token made only of digits, those
 *   four letters, `,` and `.`, standing alone (no other letter or digit touching it), with at least
 *   one real digit: `1,O85` → `1,085`, `$2l5` → `$215`. `lO` and `Ill` (no digit), `1st`, and
 *   `O2` in `CO2` (touching another letter) are left: no English word is only those letters and a digit.
 * - A space read after the thousands comma of a dollar amount: `$1, 085` → `$1,085`. Only after
 *   `$`: `floors 3, 100 units` is a list, and stays one.
 */
export function repairOcrText(text: string): string {
  const numbers = text.replace(
    /(?<![\p{L}\p{N}])[\dOolI][\dOolI,.]*[\dOolI](?![\p{L}\p{N}])/gu,
    (token: string) => (/\d/.test(token) ? token.replace(/[Oo]/g, '0').replace(/[lI]/g, '1') : token),
  );
  return numbers.replace(/(?<=\$\d{1,3}),[ ]+(?=\d{3}(?!\d))/g, ',');
}

/** One recognized page: its text (lines as `\n`), the words' places in it and their confidence. */
export interface RecognizedPage {
  text: string;
  words: WordSpan[];
}

/**
 * Page text from Tesseract's TSV output: words of a line joined by a space, lines by `\n`,
 * paragraphs and blocks by a blank line; each word's span and confidence (0-100) kept for the
 * chunks' confidence. Words are repaired one by one (repairOcrText), so spans stay exact.
 */
export function pageFromTsv(tsv: string): RecognizedPage {
  let text = '';
  const words: WordSpan[] = [];
  let last: { block: string; par: string; line: string } | null = null;
  for (const row of tsv.split('\n')) {
    const cols = row.split('\t');
    // level page block par line word left top width height conf text
    if (cols.length < 12 || cols[0] !== '5') continue;
    const word = cols.slice(11).join('\t').trim();
    if (!word) continue;
    const [block, par, line] = [cols[2], cols[3], cols[4]];
    if (last) {
      if (last.block !== block || last.par !== par) text += '\n\n';
      else if (last.line !== line) text += '\n';
      else text += ' ';
    }
    last = { block, par, line };
    const start = text.length;
    text += word;
    words.push({ start, end: text.length, confidence: Math.max(0, Number(cols[10])) });
  }
  // Repairs that join across a space (`$1, 085`) change offsets: apply them word by word first,
  // then the joins, which only ever remove spaces between two words.
  return repairSpans({ text, words });
}

function repairSpans(page: RecognizedPage): RecognizedPage {
  let text = '';
  const words: WordSpan[] = [];
  let cursor = 0;
  for (const w of page.words) {
    text += page.text.slice(cursor, w.start);
    const start = text.length;
    text += repairOcrText(page.text.slice(w.start, w.end));
    words.push({ start, end: text.length, confidence: w.confidence });
    cursor = w.end;
  }
  text += page.text.slice(cursor);
  // The `$1, 085` join: remove the spaces and shift every later span by what was removed.
  const joined = repairOcrText(text);
  if (joined === text) return { text, words };
  const removed: number[] = [];
  for (let i = 0, j = 0; i < text.length; i++) {
    if (text[i] === joined[j]) j++;
    else removed.push(i);
  }
  const shift = (offset: number) => offset - removed.filter((r) => r < offset).length;
  return {
    text: joined,
    words: words.map((w) => ({ start: shift(w.start), end: shift(w.end), confidence: w.confidence })),
  };
}

/** The grey level that best splits a bitmap's histogram in two (Otsu's method): ink below it, paper above. */
export function otsuThreshold(image: Uint8Array): number {
  const histogram = new Float64Array(256);
  for (const v of image) histogram[v]++;
  const total = image.length;
  let sumAll = 0;
  for (let i = 0; i < 256; i++) sumAll += i * histogram[i];
  let sumBelow = 0;
  let below = 0;
  let best = 0;
  let threshold = 128;
  for (let t = 0; t < 256; t++) {
    below += histogram[t];
    if (below === 0) continue;
    const above = total - below;
    if (above === 0) break;
    sumBelow += t * histogram[t];
    const diff = sumBelow / below - (sumAll - sumBelow) / above;
    const between = below * above * diff * diff;
    if (between > best) {
      best = between;
      threshold = t;
    }
  }
  return threshold;
}

/**
 * Removes specks: every connected group of ink pixels (8-connected, darker than the Otsu
 * threshold) of at most `maxArea` pixels is painted paper-white. Dust and sensor noise on a scan
 * are a few pixels; Tesseract reads them as `:`, `-`, `.` between words, which then stand between
 * the words of a phrase. A full stop of 8-point type at 300 dpi has about 20 pixels; `maxArea` is
 * set below that (despeckleArea).
 */
export function despeckle(image: Uint8Array, width: number, height: number, maxArea: number): number {
  const threshold = otsuThreshold(image);
  const seen = new Uint8Array(width * height);
  let stack = new Int32Array(4096);
  const group: number[] = [];
  let removed = 0;
  for (let start = 0; start < image.length; start++) {
    if (seen[start] || image[start] > threshold) continue;
    seen[start] = 1;
    let top = 0;
    stack[top++] = start;
    group.length = 0;
    while (top > 0) {
      const i = stack[--top];
      if (group.length <= maxArea) group.push(i);
      const x = i % width;
      const y = (i - x) / width;
      for (let dy = -1; dy <= 1; dy++) {
        const ny = y + dy;
        if (ny < 0 || ny >= height) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          if (nx < 0 || nx >= width) continue;
          const j = ny * width + nx;
          if (seen[j] || image[j] > threshold) continue;
          seen[j] = 1;
          if (top === stack.length) {
            const bigger = new Int32Array(stack.length * 2);
            bigger.set(stack);
            stack = bigger;
          }
          stack[top++] = j;
        }
      }
    }
    if (group.length <= maxArea) {
      for (const i of group) image[i] = 255;
      removed++;
    }
  }
  return removed;
}

/** The largest speck despeckle removes at `dpi`: 12 pixels at 300 dpi, scaled by area. */
export function despeckleArea(dpi: number): number {
  return Math.max(2, Math.round(12 * (dpi / 300) ** 2));
}

/** A grey bitmap as binary PGM, which Tesseract's image reader (Leptonica) takes without decoding. */
function pgm(image: Uint8Array, width: number, height: number): Buffer {
  const header = Buffer.from(`P5\n${width} ${height}\n255\n`, 'latin1');
  return Buffer.concat([header, image]);
}

/** A pixmap's grey samples without row padding, copied out of MuPDF's memory. */
function samples(pixels: Uint8ClampedArray, width: number, height: number, stride: number): Uint8Array {
  const out = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) out.set(pixels.subarray(y * stride, y * stride + width), y * width);
  return out;
}

let recognizer: Promise<{ worker: Recognizer; key: string }> | null = null;

async function recognizerFor(settings: OcrSettings): Promise<Recognizer> {
  const key = `${settings.languages}|${settings.langPath ?? ''}`;
  if (recognizer) {
    const current = await recognizer;
    if (current.key === key) return current.worker;
    recognizer = null;
    await current.worker.terminate();
  }
  recognizer = (async () => {
    const { createWorker, OEM, PSM } = await import('tesseract.js');
    // The recognizer runs in a worker thread: room for its code range (memory-limit.ts).
    allowRecognizerThread();
    const worker = await createWorker(settings.languages.split('+'), OEM.LSTM_ONLY, {
      langPath: settings.langPath ?? bundledLangPath(),
      // Failures reach the caller as rejections; without a handler tesseract.js also throws them.
      errorHandler: () => {},
      // Read the data where it lies; never write a cached copy into the working directory.
      cacheMethod: 'none',
      gzip: true,
    });
    await worker.setParameters({ tessedit_pageseg_mode: PSM.AUTO, user_defined_dpi: String(settings.dpi) });
    return { worker, key };
  })();
  recognizer.catch(() => (recognizer = null));
  return (await recognizer).worker;
}

type MupdfModule = typeof Mupdf;
let mupdfModule: Promise<MupdfModule> | null = null;

/** What MuPDF reported while the current page was rendered (its warnings and library errors). */
let mupdfMessages: string[] = [];

/**
 * MuPDF recovers from a failed image decode by drawing what it has (a blank or cut-off page) and
 * reporting it on its error output: a page drawn without the memory to decode its image must fail
 * the document, not be read as blank. The handler is MuPDF's module option, set before it loads.
 */
function loadMupdf(): Promise<MupdfModule> {
  (globalThis as Record<string, unknown>).$libmupdf_wasm_Module = {
    printErr: (text: string) => {
      mupdfMessages.push(text);
      process.stderr.write(`${text}\n`);
    },
  };
  return import('mupdf');
}

const MUPDF_OUT_OF_MEMORY = /insufficient memory|out of memory|malloc \(\d+ bytes\) failed|cannot allocate/i;

/** Fails with the refused allocation MuPDF reported since the last call, if it reported one. */
function checkMupdfMemory(): void {
  const refused = mupdfMessages.find((m) => MUPDF_OUT_OF_MEMORY.test(m));
  mupdfMessages = [];
  if (refused) throw new Error(`allocation failed in MuPDF: ${refused.slice(0, 200)}`);
}

/** A recognizer's rejection (tesseract.js rejects with strings) as the error it stands for. */
function recognitionError(error: unknown, pageNumber: number): Error {
  const text = typeof error === 'string' ? error : errorFields(error).message;
  if (/Aborted\(|out of memory|allocation failed/i.test(text)) {
    return new Error(`allocation failed in Tesseract: ${text.slice(0, 200)}`);
  }
  return new OcrError(`recognition failed on page ${pageNumber}: ${text.slice(0, 200)}`);
}

/** Points per inch: PDF page sizes are in points. */
const POINTS_PER_INCH = 72;

/**
 * What Tesseract reads of a page: the page rendered grey at `dpi` (or at the resolution that fits
 * MAX_PAGE_PIXELS), despeckled, as PGM. Fails as a refused allocation when MuPDF could not decode an
 * image for lack of memory.
 */
export function pageImage(mupdf: MupdfModule, doc: Mupdf.Document, pageNumber: number, dpi: number): Buffer {
  const page = doc.loadPage(pageNumber - 1);
  try {
    const [x0, y0, x1, y1] = page.getBounds();
    const points = Math.max(1, (x1 - x0) * (y1 - y0));
    const scale = Math.min(dpi / POINTS_PER_INCH, Math.sqrt(MAX_PAGE_PIXELS / points));
    mupdfMessages = [];
    const pixmap = page.toPixmap(mupdf.Matrix.scale(scale, scale), mupdf.ColorSpace.DeviceGray, false);
    try {
      checkMupdfMemory();
      const [width, height] = [pixmap.getWidth(), pixmap.getHeight()];
      const grey = samples(pixmap.getPixels(), width, height, pixmap.getStride());
      despeckle(grey, width, height, despeckleArea(scale * POINTS_PER_INCH));
      return pgm(grey, width, height);
    } finally {
      pixmap.destroy();
    }
  } finally {
    page.destroy();
    // Decoded images stay in MuPDF's store; the next page's image needs the room, not this one.
    mupdf.emptyStore();
  }
}

/** Whether a page paints an image (a scan's page is one): the page is run without drawing anything. */
function paintsImage(mupdf: MupdfModule, page: Pick<InstanceType<MupdfModule['Page']>, 'run'>): boolean {
  let found = false;
  const device = new mupdf.Device({
    fillImage: () => void (found = true),
    fillImageMask: () => void (found = true),
  });
  try {
    page.run(device, mupdf.Matrix.identity);
    device.close();
  } finally {
    device.destroy();
  }
  return found;
}

/**
 * Renders and recognizes those of the given pages (1-based: the pages whose text layer is too thin)
 * that paint an image: a page with neither text nor an image is blank, not a scan. Fails with a
 * LimitError before recognizing anything when more than `maxPages` pages would be. `progress` is
 * told each page as it starts, so a timeout can say how far recognition got.
 */
export async function recognizePages(
  bytes: Uint8Array,
  thinPages: number[],
  settings: OcrSettings,
  progress: (pageNumber: number, index: number, of: number) => void = () => {},
): Promise<Map<number, RecognizedPage>> {
  const out = new Map<number, RecognizedPage>();
  if (thinPages.length === 0) return out;
  mupdfModule ??= loadMupdf();
  const mupdf = await mupdfModule;
  const doc = mupdf.Document.openDocument(bytes, 'application/pdf');
  try {
    const scanned = thinPages.filter((n) => {
      const page = doc.loadPage(n - 1);
      try {
        return paintsImage(mupdf, page);
      } finally {
        page.destroy();
      }
    });
    if (scanned.length > settings.maxPages) {
      throw new LimitError(
        `too many pages to recognize: ${scanned.length} pages are images without text, more than the ${settings.maxPages} allowed (OCR_MAX_PAGES)`,
      );
    }
    if (scanned.length === 0) return out;
    const worker = await recognizerFor(settings);
    for (const [index, pageNumber] of scanned.entries()) {
      progress(pageNumber, index, scanned.length);
      const image = pageImage(mupdf, doc, pageNumber, settings.dpi);
      const { data } = await worker
        .recognize(image, {}, { text: false, tsv: true })
        .catch((error: unknown) => Promise.reject(recognitionError(error, pageNumber)));
      const tsv = data.tsv ?? '';
      // Tesseract answers an image it could not load (its memory could not grow) with no page at
      // all; that must fail the document, not pass for a blank page.
      if (!tsv.split('\n').some((row) => row.startsWith('1\t'))) {
        throw new OcrError(`recognition could not read page ${pageNumber}'s image (${image.length} bytes)`);
      }
      out.set(pageNumber, pageFromTsv(tsv));
    }
  } finally {
    doc.destroy();
  }
  return out;
}

/**
 * Pages with their text layer where it is text, and recognized text where it is not (when
 * recognition found letters or digits there). `ocrPages`: how many pages' text came from OCR.
 */
export function mergeRecognized(
  pages: string[],
  recognized: Map<number, RecognizedPage>,
): { pages: PageText[]; ocrPages: number } {
  let ocrPages = 0;
  const merged = pages.map((text, i): PageText => {
    const ocr = recognized.get(i + 1);
    if (!ocr || !/[\p{L}\p{N}]{2}/u.test(ocr.text)) return { pageNumber: i + 1, text };
    ocrPages++;
    return { pageNumber: i + 1, text: ocr.text, words: ocr.words };
  });
  return { pages: merged, ocrPages };
}
