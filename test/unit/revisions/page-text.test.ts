import fc from 'fast-check';
import { chunkPages, pageTextHash } from '../../../src/search/text/chunk.js';
import { rebuildPages } from '../../../src/revisions/page-text.js';

const SEED = 20261128;

const line = fc
  .array(
    fc.constantFrom('Suite', '1B', '$1,249,900', 'deposit', '5%', 'in', '30', 'days', 'quartz', '—', '30"'),
    {
      minLength: 1,
      maxLength: 14,
    },
  )
  .map((words) => words.join(' '));
const page = fc.array(line, { minLength: 1, maxLength: 60 }).map((lines) => lines.join('\n'));

describe('pages rebuilt from their chunks', () => {
  it('give back each page exactly, as its stored hash confirms', () => {
    fc.assert(
      fc.property(fc.array(page, { minLength: 1, maxLength: 4 }), (texts) => {
        const pages = texts.map((text, i) => ({ pageNumber: i + 1, text }));
        const chunks = chunkPages(pages).map((c) => ({
          pageNumber: c.pageNumber,
          rawText: c.rawText,
          textHash: c.pageTextHash,
        }));
        const rebuilt = rebuildPages(chunks);
        expect(rebuilt.map((p) => p.pageNumber)).toEqual(pages.map((p) => p.pageNumber));
        for (const p of rebuilt) {
          expect(p.exact).toBe(true);
          expect(pageTextHash(p.text)).toBe(p.textHash);
        }
      }),
      { seed: SEED, numRuns: 200, verbose: 1 },
    );
  });

  it('give back a page whose text repeats itself (identical lines), where the longest overlap is wrong', () => {
    const text = Array.from({ length: 24 }, () => `${'é'.repeat(60)} quartz ${'é'.repeat(60)}`).join('\n');
    const chunks = chunkPages([{ pageNumber: 1, text }]).map((c) => ({
      pageNumber: c.pageNumber,
      rawText: c.rawText,
      textHash: c.pageTextHash,
    }));
    expect(chunks.length).toBeGreaterThan(2);
    const [p] = rebuildPages(chunks);
    expect(p.exact).toBe(true);
    expect(p.text).toBe(text);
  });

  it('say so when a page cannot be rebuilt exactly', () => {
    const [p] = rebuildPages([{ pageNumber: 1, rawText: 'Suite 1B', textHash: pageTextHash('Suite 1C') }]);
    expect(p).toMatchObject({ text: 'Suite 1B', exact: false });
  });
});
