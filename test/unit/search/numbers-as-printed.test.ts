import fc from 'fast-check';
import { searchVectorLiteral, searchQueryLiteral } from '../../../src/search/text/lexemes.js';
import { findFirstMatch } from '../../../src/search/query/match.js';
import { normalizeText, numberReadings } from '../../../src/search/text/normalize.js';
import { queryWords } from '../../../src/search/query/query-forms.js';

/**
 * How numbers are read (docs/search.md): each rule edge is tried both ways, what a reader finds
 * and what they would not, through the query's own spellings (`queryWords`) and the strict
 * post-filter. The pre-filter's agreement is proven in test/integration/search/prefilter.property.test.ts.
 */
const found = (text: string, query: string) =>
  findFirstMatch(normalizeText(text), queryWords(query).plain) !== null;

/** A row as extraction writes it: the page's column gaps as tabs (src/ingestion/pdf-text.ts). */
const row = (...cells: string[]) => cells.join('\t');

describe('numbers as a table shows them', () => {
  describe('the price-list rows', () => {
    const rows = [
      row('Suite 805', '850 sq ft', '$749,900'),
      row('Unit 12', '450 sq ft'),
      row('Plan B', '$650,000', '600 sq ft'),
    ].join('\n');

    it.each(['850 sq ft', '450 sq ft', '$650,000', '$749,900', '600 sq ft', '650,000', '749900'])(
      'finds %j',
      (query) => expect(found(rows, query)).toBe(true),
    );

    it.each(['805,850 sq ft', '12,450 sq ft', '805850', '12 450 sq ft', '650,000,600', '$650,000,600'])(
      'finds no phantom %j',
      (query) => expect(found(rows, query)).toBe(false),
    );

    it('normalizes each row with its columns apart and its comma-grouped prices whole', () => {
      expect(normalizeText(rows)).toBe(
        'suite 805 | 850 square feet $749900 unit 12 | 450 square feet plan b $650000 | 600 square feet',
      );
    });
  });

  // A digit column of 1 to 4 digits beside a comma-grouped price, with a column gap (tab) and with
  // one plain space (ambiguous), before and after the price.
  describe.each(['7', '12', '450', '1200'])('a column of %j', (n) => {
    it('beside a comma-grouped price: both found, never one number', () => {
      for (const text of [row(n, '$749,900'), row('$749,900', n), `${n} $749,900`, `$749,900 ${n}`]) {
        expect({ text, n: found(text, n), price: found(text, '$749,900') }).toEqual({
          text,
          n: true,
          price: true,
        });
        expect(found(text, `${n}749,900`)).toBe(false);
        expect(found(text, `749,900,${n}`)).toBe(false);
      }
    });

    it('beside a 3-digit group: a column gap keeps them apart, one plain space reads both ways', () => {
      const joined = `${n}850`.replace(/\B(?=(\d{3})+$)/g, ',');
      const validGroups = n.length <= 3;
      expect(found(row(n, '850 sq ft'), '850 sq ft')).toBe(true);
      expect(found(row(n, '850 sq ft'), `${joined} sq ft`)).toBe(false);
      expect(found(`${n} 850 sq ft`, '850 sq ft')).toBe(true);
      // `1200 850` cannot be one number: only groups of one to three digits, then threes, can.
      expect(found(`${n} 850 sq ft`, `${joined} sq ft`)).toBe(validGroups);
      expect(found(`${n}\u00A0850 sq ft`, '850 sq ft')).toBe(!validGroups);
      expect(found(`${n}\u00A0850 sq ft`, `${joined} sq ft`)).toBe(validGroups);
    });
  });

  it.each([
    // comma-grouped: one number, never extended by a space group
    ['$1,250,000', '$1250000'],
    ['$650,000 600 sq ft', '$650000 600 square feet'],
    ['1,250 000', '1250 000'],
    // no-break, narrow no-break, thin and figure spaces are separators (French-Canadian `1 250 $`)
    ['1\u00A0250 $', '1250 $'],
    ['1\u202F250\u202F000 $', '1250000 $'],
    ['1\u2009250', '1250'],
    ['1\u2007250', '1250'],
    // ... but not between a group of four and one of three
    ['1250\u00A0000', '1250 000'],
    // a column gap between two numbers is marked, one space or one line break is not
    ['12\t450', '12 | 450'],
    ['12   450', '12 | 450'],
    ['12\u2003450', '12 | 450'],
    ['12 450', '12 450'],
    ['12\n450', '12 450'],
    ['12 \n450', '12 450'],
    ['Suite\t805', 'suite 805'],
    // ranges, percentages, fractions and decimals keep their own reading
    ['suites 101-205\t850 sq ft', 'suites 101-205 | 850 square feet'],
    ['5%\t90 days', '5% 90 days'],
    ['2 1/2\t250', '2.5 | 250'],
    ['2.5\t250', '2.5 | 250'],
  ])('%j → %j, and again unchanged', (raw, expected) => {
    expect(normalizeText(raw)).toBe(expected);
    expect(normalizeText(expected)).toBe(expected);
  });

  it.each([
    // text, query, found
    ['$5,000 on signing', '$5,000', true],
    ['$5,000 on signing', '5 000', true],
    ['$5,000 on signing', '000 on signing', false],
    ['5% in 90 days', '5% in 90 days', true],
    ['5%\t90 days', '5 90', false],
    ['Suites 101-205', '101-205', true],
    ['Suites 101-205', '205', true],
    ['Suites 101-205', '101,205', false],
    ['2 1/2 baths\t850 sq ft', '2.5 baths', true],
    ['2 1/2 baths\t850 sq ft', '1/2 baths', false],
    ['1\u00A0250 $ par mois', '1,250 $', true],
    ['1\u00A0250 $ par mois', '250 $', false],
    ['un budget de 12 450 $', '12,450 $', true],
    ['un budget de 12 450 $', '450 $', true],
    ['Total 1 250 000', '1,250,000', true],
    ['Total 1 250 000', '250,000', true],
    ['Total 1,250,000', '250,000', false],
    ['Total 1,250,000', '1 250 000', true],
    ['Year 2026', '026', false],
  ])('%j / %j → %s', (text, query, expected) => {
    expect(found(text, query)).toBe(expected);
  });

  it('spells a query number in its other reading, and leaves other terms alone', () => {
    expect(numberReadings('12450 square feet')).toEqual(['12 450 square feet']);
    expect(numberReadings('12 450 square feet')).toEqual(['12450 square feet']);
    expect(numberReadings('$1250000')).toEqual(['$1 250 000']);
    expect(numberReadings('450 square feet')).toEqual([]);
    expect(numberReadings('2.5 baths')).toEqual([]);
    expect(numberReadings('1250.50')).toEqual([]);
    expect(numberReadings('quartz countertops')).toEqual([]);
  });

  it('gives every reading a pre-filter query of plain words', () => {
    const terms = queryWords('12,450 sq ft').plain;
    expect(terms).toEqual(['12450 square feet', '12 450 square feet']);
    expect(searchQueryLiteral(terms)).toBe(
      "('12450' <-> 'square' <-> 'feet') | ('12' <-> '450' <-> 'square' <-> 'feet')",
    );
    expect(searchVectorLiteral(normalizeText(row('Unit 12', '450 sq ft')))).toContain("' | ':3");
  });

  it('normalizes any mix of digits, separators and gaps to text a second pass leaves alone', () => {
    const piece = fc.constantFrom(
      '1',
      '12',
      '450',
      '1200',
      ',',
      ' ',
      '\t',
      '\n',
      '\u00A0',
      '\u202F',
      '$',
      '%',
      '-',
      '/',
      '.',
      'sq ft',
      'x',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 14 }), (parts) => {
        const once = normalizeText(parts.join(''));
        expect(normalizeText(once)).toBe(once);
      }),
      { seed: 47, numRuns: 2000 },
    );
  });
});
