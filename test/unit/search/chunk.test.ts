import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { chunkPages, type PageText } from '../../../src/search/text/chunk.js';
import { findFirstMatch } from '../../../src/search/query/match.js';
import { searchVectorLiteral } from '../../../src/search/text/lexemes.js';
import { normalize } from '../../../src/search/text/normalize.js';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

function lines(count: number, label: string): string {
  return Array.from(
    { length: count },
    (_, i) => `${label} line ${i}: quartz countertops, 30" gas range and walk-in closet.`,
  ).join('\n');
}

describe('chunkPages', () => {
  it('keeps chunks within their page, within the size limit, numbered in document order', () => {
    const pages: PageText[] = [
      { pageNumber: 2, text: lines(40, 'second') },
      { pageNumber: 1, text: lines(30, 'first') },
      { pageNumber: 3, text: 'Short last page.' },
    ];
    const chunks = chunkPages(pages);
    expect(chunks.map((chunk) => chunk.chunkIndex)).toEqual([...chunks.keys()]);
    expect(chunks.map((chunk) => chunk.pageNumber)).toEqual(
      [...chunks.map((chunk) => chunk.pageNumber)].sort(),
    );
    expect(new Set(chunks.map((chunk) => chunk.pageNumber))).toEqual(new Set([1, 2, 3]));
    for (const chunk of chunks) {
      const page = pages.find((candidate) => candidate.pageNumber === chunk.pageNumber)!;
      expect(page.text).toContain(chunk.rawText);
      expect(chunk.rawText.length).toBeLessThanOrEqual(1000);
      expect(chunk.rawText).toBe(chunk.rawText.trim());
      expect(chunk.searchText).toBe(normalize(chunk.rawText).text);
      expect(chunk.searchVector).toBe(searchVectorLiteral(chunk.searchText));
      expect(chunk.pageTextHash).toBe(sha256(normalize(page.text).text));
    }
    expect(chunks.at(-1)).toMatchObject({ pageNumber: 3, rawText: 'Short last page.' });
  });

  it('overlaps consecutive chunks by about 150 characters, starting at a line', () => {
    const text = lines(60, 'page');
    const chunks = chunkPages([{ pageNumber: 1, text }]);
    expect(chunks.length).toBeGreaterThan(3);
    for (let i = 1; i < chunks.length; i++) {
      const previousEnd = text.indexOf(chunks[i - 1].rawText) + chunks[i - 1].rawText.length;
      const start = text.indexOf(chunks[i].rawText);
      expect(previousEnd - start).toBeGreaterThanOrEqual(150);
      expect(previousEnd - start).toBeLessThanOrEqual(225);
      expect(text[start - 1]).toBe('\n');
    }
  });

  it('falls back to word boundaries when the text has no line breaks', () => {
    const text = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
    const chunks = chunkPages([{ pageNumber: 1, text }]);
    for (const chunk of chunks) {
      const start = text.indexOf(chunk.rawText);
      const end = start + chunk.rawText.length;
      expect(start === 0 || text[start - 1] === ' ').toBe(true);
      expect(end === text.length || text[end] === ' ').toBe(true);
    }
  });

  it('cuts text without any whitespace at the size limit', () => {
    const chunks = chunkPages([{ pageNumber: 1, text: 'x'.repeat(2500) }]);
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    for (const chunk of chunks) expect(chunk.rawText.length).toBeLessThanOrEqual(1000);
  });

  it('never splits a surrogate pair', () => {
    const chunks = chunkPages([{ pageNumber: 1, text: '\uD83C\uDFE0'.repeat(700) }], {
      maxChars: 101,
      overlap: 11,
    });
    for (const chunk of chunks) expect(chunk.rawText).toMatch(/^(?:\uD83C\uDFE0)+$/u);
  });

  it('produces no chunks for empty or invisible pages', () => {
    expect(
      chunkPages([
        { pageNumber: 1, text: '' },
        { pageNumber: 2, text: ' \n\t\u00A0 ' },
        { pageNumber: 3, text: '\u00AD\u200B' },
      ]),
    ).toEqual([]);
  });

  it('hashes the page, not the chunk, so citations survive re-chunking', () => {
    const page = { pageNumber: 4, text: lines(50, 'page') };
    const small = chunkPages([page], { maxChars: 300, overlap: 60 });
    const large = chunkPages([page]);
    expect(small.length).toBeGreaterThan(large.length);
    expect(new Set([...small, ...large].map((chunk) => chunk.pageTextHash))).toEqual(
      new Set([sha256(normalize(page.text).text)]),
    );
  });

  it('finds a phrase cut by a chunk boundary in the next chunk', () => {
    const text = `${'filler words here '.repeat(55)}quartz countertops ${'more text follows '.repeat(40)}`;
    const first = chunkPages([{ pageNumber: 1, text }])[0];
    // the boundary really does cut the phrase
    expect(first.searchText).not.toContain('quartz countertops');
    expect(text.slice(0, text.indexOf('quartz countertops') + 20)).toContain(first.rawText);
    const chunks = chunkPages([{ pageNumber: 1, text }]);
    expect(chunks.some((chunk) => findFirstMatch(chunk.searchText, ['quartz countertops']) !== null)).toBe(
      true,
    );
  });

  const word = fc.constantFrom(
    'quartz',
    'countertops',
    'Counter-\ntops',
    '30"',
    '30â€³',
    'gas',
    'range',
    'walk-in',
    'closet',
    'floor\u2011to\u2011ceiling',
    'windows',
    'Caf\u00C3\u00A9',
    '850\u00A0sq.\u00A0ft.',
    'ensuite',
    'dish\u00ADwasher',
  );
  const separator = fc.constantFrom(' ', ' ', ' ', '\n', ', ', '. ');
  const page = fc
    .array(fc.tuple(word, separator), { minLength: 20, maxLength: 400 })
    .map((parts) => parts.map(([w, s]) => w + s).join(''));

  it('finds every phrase shorter than the overlap in at least one chunk', () => {
    fc.assert(
      fc.property(page, fc.constantFrom([1000, 150], [200, 50], [120, 30]), (text, [maxChars, overlap]) => {
        const chunks = chunkPages([{ pageNumber: 1, text }], { maxChars, overlap });
        const { text: normalized, offsets } = normalize(text);
        const words = [...normalized.matchAll(/\S+/gu)];
        for (let i = 0; i < words.length; i++) {
          for (let length = 1; length <= 4 && i + length <= words.length; length++) {
            const start = words[i].index;
            const last = words[i + length - 1];
            const end = last.index + last[0].length;
            if (offsets[end] - offsets[start] > overlap) continue;
            const phrase = normalized.slice(start, end);
            if (findFirstMatch(normalized, [phrase]) === null) continue;
            const found = chunks.some((chunk) => findFirstMatch(chunk.searchText, [phrase]) !== null);
            if (!found) throw new Error(`"${phrase}" is in the page but in no chunk`);
          }
        }
      }),
      { numRuns: 60 },
    );
  });
});
