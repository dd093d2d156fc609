import { closeExtractors, extractPdf } from '../../../src/ingestion/extract.js';
import { EXTRACTION_METHOD, OCR_MIXED_METHOD } from '../../../src/ingestion/pdf-text.js';
import { normalizeText } from '../../../src/search/text/normalize.js';
import { imagePagesPdf, zerosFlate } from '../../support/hostile-pdf.js';
import { makePdf } from '../../support/pdf.js';
import { composedPdf, pageJpeg, scannedPdf } from '../../support/scan.js';

/**
 * OCR in the extractor process. Tests render at 200 dpi (the scans are 200 dpi images; the service
 * default is 300) to keep the CPU they take on a two-core runner modest.
 */
const OCR = { dpi: 200 };
const LONG = 120_000;
/** A test's own budget: several extractions, each with LONG as its extraction timeout. */
const TEST = 300_000;

const PRICE_TEXT =
  'Deposit structure: $5,000 on signing, 5% in 90 days.\nCash back of $10,000 on closing for the first 20 buyers.\nQuartz countertops and a 30 inch gas range in every suite.';

afterAll(() => closeExtractors());

const normalized = (text: string) => normalizeText(text);

describe('OCR of scanned pages', () => {
  it(
    'reads a scan into text, chunks with their page numbers and a confidence',
    async () => {
      const scan = await scannedPdf(['Harbour Lights price list', PRICE_TEXT]);
      const result = await extractPdf(scan, { ocr: OCR, chunk: true, timeoutMs: LONG });
      expect(result).toMatchObject({ status: 'completed', method: 'ocr', pageCount: 2, error: null });
      expect(result.extractorVersion).toMatch(/\+tesseract\.js-\d+\.\d+\.\d+$/);
      const chunks = result.chunks!;
      expect(chunks.map((c) => c.pageNumber)).toEqual([1, 2]);
      expect(chunks[1].searchText).toContain(normalized('cash back of $10,000 on closing'));
      expect(chunks[1].searchText).toContain(normalized('quartz countertops'));
      for (const c of chunks) {
        expect(c.ocrConfidence).toBeGreaterThan(50);
        expect(c.ocrConfidence).toBeLessThanOrEqual(100);
      }
    },
    TEST,
  );

  it(
    'recognizes a scan whose only text layer is a printed page number',
    async () => {
      const { jpeg } = await pageJpeg(PRICE_TEXT);
      const pdf = await composedPdf([{ image: jpeg, text: 'Page 3 of 12' }]);
      const result = await extractPdf(pdf, { ocr: OCR, timeoutMs: LONG });
      expect(result).toMatchObject({ status: 'completed', method: 'ocr' });
      expect(normalized(result.pages[0].text)).toContain(normalized('deposit structure'));
      expect(result.pages[0].words!.length).toBeGreaterThan(10);
    },
    TEST,
  );

  it(
    'keeps the text layer of a text page with a photo, without recognizing it',
    async () => {
      const { jpeg } = await pageJpeg('A photo that happens to show the words gas range.');
      const text = 'Suites feature quartz countertops.';
      const pdf = await composedPdf([{ image: jpeg, imageBox: 'lower-half', text }]);
      const result = await extractPdf(pdf, { ocr: OCR, timeoutMs: LONG });
      expect(result).toMatchObject({ status: 'completed', method: EXTRACTION_METHOD });
      expect(result.pages[0].text.trim()).toBe(text);
      expect(result.pages[0].words).toBeUndefined();
    },
    TEST,
  );

  it(
    'says so when a document has both kinds of pages, and leaves blank pages alone',
    async () => {
      const { jpeg } = await pageJpeg(PRICE_TEXT);
      const pdf = await composedPdf([
        { text: 'Features and finishes of every suite in the tower.' },
        { image: jpeg },
        {},
      ]);
      const result = await extractPdf(pdf, { ocr: OCR, timeoutMs: LONG });
      expect(result).toMatchObject({ status: 'completed', method: OCR_MIXED_METHOD, pageCount: 3 });
      expect(result.pages[0].words).toBeUndefined();
      expect(normalized(result.pages[1].text)).toContain(normalized('cash back'));
      expect(result.pages[2]).toEqual({ pageNumber: 3, text: '' });
    },
    TEST,
  );

  it('leaves a blank text document alone: a drawing is not a scan', async () => {
    const result = await extractPdf(await makePdf(['Quartz countertops in every suite.', '']), { ocr: OCR });
    expect(result).toMatchObject({ status: 'completed', method: EXTRACTION_METHOD });
    expect(result.pages[1].text).toBe('');
  });

  it(
    'leaves scans without text when OCR is off, and finds nothing in a picture without text',
    async () => {
      const scan = await scannedPdf([PRICE_TEXT]);
      expect(await extractPdf(scan, { ocr: { ...OCR, enabled: false } })).toMatchObject({
        status: 'no_text',
        method: EXTRACTION_METHOD,
      });
      const blank = await pageJpeg('');
      const picture = imagePagesPdf({
        pages: 1,
        width: blank.width,
        height: blank.height,
        data: blank.jpeg,
        filter: 'DCTDecode',
      });
      expect(await extractPdf(picture, { ocr: OCR, timeoutMs: LONG })).toMatchObject({
        status: 'no_text',
        method: EXTRACTION_METHOD,
      });
    },
    TEST,
  );
});

describe('hostile scans', () => {
  it(
    'fails a document with more scanned pages than allowed before recognizing any',
    async () => {
      const { jpeg, width, height } = await pageJpeg(PRICE_TEXT);
      const pdf = imagePagesPdf({ pages: 300, width, height, data: jpeg, filter: 'DCTDecode' });
      const started = performance.now();
      expect(await extractPdf(pdf, { ocr: { ...OCR, maxPages: 50 }, timeoutMs: LONG })).toMatchObject({
        status: 'failed',
        error:
          'too many pages to recognize: 300 pages are images without text, more than the 50 allowed (OCR_MAX_PAGES)',
      });
      expect(performance.now() - started).toBeLessThan(30_000);
    },
    TEST,
  );

  it(
    'times out a long scan and says how far recognition got',
    async () => {
      const { jpeg, width, height } = await pageJpeg(PRICE_TEXT);
      const pdf = imagePagesPdf({ pages: 40, width, height, data: jpeg, filter: 'DCTDecode' });
      // One extractor, warmed with a one-page scan, so the recognizer is loaded when the clock starts.
      const warm = imagePagesPdf({ pages: 1, width, height, data: jpeg, filter: 'DCTDecode' });
      expect(await extractPdf(warm, { ocr: OCR, poolSize: 1, timeoutMs: LONG })).toMatchObject({
        status: 'completed',
      });
      const result = await extractPdf(pdf, { ocr: OCR, poolSize: 1, timeoutMs: 4000 });
      expect(result).toMatchObject({ status: 'failed' });
      expect(result.error).toMatch(
        /^timed out after 4000ms \(recognizing page \d+, \d+ of 40 scanned pages\)$/,
      );
    },
    TEST,
  );

  it(
    'reads a page image of 10,000 px a side and a page of 200 inches a side within the limits',
    async () => {
      // A scan at 1,176 dpi: 10,000 × 12,941 pixels, decoded by MuPDF at the resolution it renders.
      const fine = await pageJpeg(PRICE_TEXT, 10_000 / 8.5);
      expect(fine.width).toBe(10_000);
      const huge = imagePagesPdf({
        pages: 1,
        width: fine.width,
        height: fine.height,
        data: fine.jpeg,
        filter: 'DCTDecode',
      });
      const hugeResult = await extractPdf(huge, { ocr: OCR, timeoutMs: LONG });
      // MuPDF decodes the whole image (130 MB of grey) beside the recognizer's memory: read, or
      // refused at the limit and said so, never passed off as a blank page.
      if (hugeResult.status === 'failed') {
        expect(hugeResult.error).toBe("exceeded memory: the extractor's 512 MB limit");
      } else {
        expect(hugeResult).toMatchObject({ status: 'completed', method: 'ocr' });
        expect(normalized(hugeResult.pages[0].text)).toContain(normalized('cash back'));
      }
      // A page of 14,400 points a side: rendered at the resolution that fits MAX_PAGE_PIXELS.
      const { jpeg, width, height } = await pageJpeg(PRICE_TEXT);
      const poster = imagePagesPdf({
        pages: 1,
        width,
        height,
        data: jpeg,
        filter: 'DCTDecode',
        mediaBox: [14_400, 14_400],
      });
      const posterResult = await extractPdf(poster, { ocr: OCR, timeoutMs: LONG });
      expect(posterResult).toMatchObject({ status: 'completed', method: 'ocr' });
      expect(normalized(posterResult.pages[0].text)).toContain(normalized('cash back'));
    },
    TEST,
  );

  it(
    'fails a decompression bomb inside an image at the memory limit, and the next scan still reads',
    async () => {
      // A 60,000 × 60,000 grey image: 3.6 GB once inflated, a few hundred kB on disk.
      const bomb = imagePagesPdf({
        pages: 1,
        width: 60_000,
        height: 60_000,
        data: zerosFlate(3_600_000_000),
        filter: 'FlateDecode',
      });
      const result = await extractPdf(bomb, { ocr: OCR, maxMemoryMb: 256, timeoutMs: LONG });
      expect(result.status).toBe('failed');
      expect(result.error).toBe("exceeded memory: the extractor's 256 MB limit");
      const scan = await scannedPdf([PRICE_TEXT]);
      expect(await extractPdf(scan, { ocr: OCR, timeoutMs: LONG })).toMatchObject({
        status: 'completed',
        method: 'ocr',
      });
    },
    TEST,
  );
});
