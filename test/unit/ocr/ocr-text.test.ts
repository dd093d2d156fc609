import {
  despeckle,
  despeckleArea,
  MIN_TEXT_LAYER_CHARS,
  needsOcr,
  pageFromTsv,
  repairOcrText,
} from '../../../src/ingestion/ocr.js';
import { chunkPages } from '../../../src/search/text/chunk.js';

describe('which pages are recognized', () => {
  it('recognizes a page whose text layer is only a page number, a stamp or nothing', () => {
    for (const text of ['', '3', 'Page 3 of 12', '- 14 -', 'SCANNED 2026-01-05', '\n\n  \n'])
      expect({ text, ocr: needsOcr(text) }).toEqual({ text, ocr: true });
  });

  it('keeps a text layer of a short caption or more', () => {
    expect(MIN_TEXT_LAYER_CHARS).toBe(16);
    for (const text of ['Quartz countertops', 'Suites feature quartz countertops.', 'Page 3 of 12 — Deposit'])
      expect({ text, ocr: needsOcr(text) }).toEqual({ text, ocr: false });
    // The edge: 15 letters and digits are thin, 16 are text.
    expect(needsOcr('abcde fghij 12345')).toBe(true);
    expect(needsOcr('abcde fghij 123456')).toBe(false);
  });
});

describe('exact repairs of OCR misreadings', () => {
  it('reads O, o, l and I inside a number as digits', () => {
    expect(repairOcrText('Prices from $1,O85,9OO')).toBe('Prices from $1,085,900');
    expect(repairOcrText('Unit 2O3 has 1,l50 sq. ft.')).toBe('Unit 203 has 1,150 sq. ft.');
    expect(repairOcrText('$5,OOO on signing, 5% in 9O days')).toBe('$5,000 on signing, 5% in 90 days');
    expect(repairOcrText('floor 1I')).toBe('floor 11');
    expect(repairOcrText('1OO, 2l0 and 3,OOO.')).toBe('100, 210 and 3,000.');
  });

  it('leaves words, codes and letters that merely touch a number', () => {
    for (const text of [
      'lO Oil Ill', // no digit at all
      'CO2 emissions', // the O touches a letter
      'the 1st floor and 2nd', // letters outside O, o, l, I
      'Model A1O0X', // part of a longer code
      'O 2', // separate tokens: not one number
      'I 1', // a pronoun beside a digit
      'cool 100',
    ])
      expect(repairOcrText(text)).toBe(text);
  });

  it('joins a space read after the thousands comma of a dollar amount, and nothing else', () => {
    expect(repairOcrText('from $1, 085,900')).toBe('from $1,085,900');
    expect(repairOcrText('$10, 000 cash back')).toBe('$10,000 cash back');
    for (const text of ['floors 3, 100 units', '$1, 2, 3', '$1, 0850', 'units 1, 085'])
      expect(repairOcrText(text)).toBe(text);
  });
});

/** A TSV row of Tesseract's level 5 (a word). */
const word = (block: number, par: number, line: number, n: number, conf: number, text: string) =>
  ['5', '1', block, par, line, n, 0, 0, 10, 10, conf, text].join('\t');

describe('page text from Tesseract output', () => {
  it('joins words by spaces, lines by line ends, paragraphs by a blank line, with each word span', () => {
    const tsv = [
      'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext',
      '1\t1\t0\t0\t0\t0\t0\t0\t100\t100\t-1\t',
      word(1, 1, 1, 1, 96, 'Cash'),
      word(1, 1, 1, 2, 90, 'back'),
      word(1, 1, 2, 1, 80, '$1,O85'),
      word(2, 1, 1, 1, 40, 'Deposit'),
    ].join('\n');
    const page = pageFromTsv(tsv);
    expect(page.text).toBe('Cash back\n$1,085\n\nDeposit');
    expect(page.words.map((w) => page.text.slice(w.start, w.end))).toEqual([
      'Cash',
      'back',
      '$1,085',
      'Deposit',
    ]);
    expect(page.words.map((w) => w.confidence)).toEqual([96, 90, 80, 40]);
  });

  it('keeps word spans exact when a repair removes a space', () => {
    const page = pageFromTsv(
      [word(1, 1, 1, 1, 90, 'from'), word(1, 1, 1, 2, 70, '$1,'), word(1, 1, 1, 3, 60, '085')].join('\n'),
    );
    expect(page.text).toBe('from $1,085');
    expect(page.words.map((w) => page.text.slice(w.start, w.end))).toEqual(['from', '$1,', '085']);
  });

  it("gives each chunk its words' length-weighted confidence, and text-layer chunks none", () => {
    const page = pageFromTsv([word(1, 1, 1, 1, 90, 'Quartz'), word(1, 1, 1, 2, 60, 'top')].join('\n'));
    const [ocr] = chunkPages([{ pageNumber: 2, ...page }]);
    expect(ocr).toMatchObject({ pageNumber: 2, rawText: 'Quartz top', ocrConfidence: 80 });
    const [plain] = chunkPages([{ pageNumber: 1, text: 'Quartz top' }]);
    expect(plain.ocrConfidence).toBeNull();
  });
});

describe('despeckling a page image', () => {
  it('removes specks of a few pixels and keeps full stops and strokes', () => {
    const [width, height] = [60, 20];
    const image = new Uint8Array(width * height).fill(230);
    const ink = (x0: number, y0: number, w: number, h: number) => {
      for (let y = y0; y < y0 + h; y++) for (let x = x0; x < x0 + w; x++) image[y * width + x] = 40;
    };
    ink(2, 2, 2, 2); // a speck: 4 pixels
    ink(10, 10, 3, 3); // a speck: 9 pixels
    ink(20, 5, 5, 5); // a full stop at 300 dpi: 25 pixels
    ink(30, 2, 2, 15); // a stroke
    expect(despeckleArea(300)).toBe(12);
    expect(despeckle(image, width, height, despeckleArea(300))).toBe(2);
    expect(image[2 * width + 2]).toBe(255);
    expect(image[10 * width + 10]).toBe(255);
    expect(image[5 * width + 20]).toBe(40);
    expect(image[10 * width + 30]).toBe(40);
  });
});
