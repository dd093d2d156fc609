import {
  searchQueryLiteral,
  searchVectorLiteral,
  termQueryLiteral,
} from '../../../src/search/text/lexemes.js';
import { buildExcerpt, findFirstMatch, matchesAt } from '../../../src/search/query/match.js';
import { normalize, normalizeText, numberReadings } from '../../../src/search/text/normalize.js';

describe('findFirstMatch', () => {
  it.each([
    // [normalized text, terms, expected match or null]
    ['a pinch of salt', ['inch'], null],
    ['130 inch screen', ['30 inch'], null],
    ['a 30 inch range', ['30 inch'], { term: '30 inch', start: 2, end: 9 }],
    ['30 inch', ['30 inch'], { term: '30 inch', start: 0, end: 7 }],
    ['30 inches', ['30 inch'], null],
    ['quartz countertops.', ['countertops'], { term: 'countertops', start: 7, end: 18 }],
    ['quartz countertops', ['countertop'], null],
    ['(countertops)', ['countertops'], { term: 'countertops', start: 1, end: 12 }],
    ['counter-tops', ['counter tops'], null],
    ['counter-tops and counter tops', ['counter tops'], { term: 'counter tops', start: 17, end: 29 }],
    ['stainless-steel', ['steel'], { term: 'steel', start: 10, end: 15 }],
    ['café', ['caf'], null],
    ['naïve', ['na'], null],
    ['i\u0307stanbul', ['stanbul'], null],
    ['room 2b', ['2'], null],
    ['x \uD835\uDC00bc', ['bc'], null],
    ['gas range and gas stove', ['gas stove', 'gas range'], { term: 'gas range', start: 0, end: 9 }],
    [
      'quartz countertops',
      ['countertops', 'quartz countertops'],
      { term: 'quartz countertops', start: 0, end: 18 },
    ],
    ['quartz - countertops', ['-'], null],
    ['', ['quartz'], null],
    ['quartz', [], null],
  ])('%j in %j', (text, terms, expected) => {
    expect(findFirstMatch(text, terms)).toEqual(expected);
  });

  it('finds the normalized query in normalized text whatever the inch-mark form', () => {
    for (const raw of [
      '30" gas range',
      '30-inch gas range',
      '30â€³ gas range',
      '30\uFFFD gas range',
      '30 in. gas range',
    ]) {
      expect(
        findFirstMatch(normalizeText(`Kitchen: ${raw} by Wolf`), [normalizeText('30 inch')]),
      ).not.toBeNull();
    }
  });

  it('exposes the boundary check it uses', () => {
    expect(matchesAt('a pinch', 'inch', 3)).toBe(false);
    expect(matchesAt('an inch', 'inch', 3)).toBe(true);
  });
});

describe('searchQueryLiteral', () => {
  it('ORs one exact phrase per distinct term, with punctuation as its own lexeme', () => {
    expect(searchQueryLiteral(['30 inch gas range', 'counter-tops', 'counter tops', '&', "o'neil"])).toBe(
      "('30' <-> 'inch' <-> 'gas' <-> 'range') | ('counter' <-> '-' <-> 'tops') | ('counter' <-> 'tops') | ('o' <-> '''' <-> 'neil')",
    );
  });

  it('marks punctuation at the ends of a term, so it needs a non-word character beyond it', () => {
    expect(termQueryLiteral('(quartz)')).toBe("'s(' <-> 'quartz' <-> 'p)'");
    expect(searchVectorLiteral('see (quartz), or not')).toBe(
      "'see':1 ' (':2 's(':2 'quartz':3 '), ':4 's, ':4 'p),':4 'p)':4 'or':5 'not':6",
    );
  });

  it('matches nothing when no term is searchable', () => {
    expect(searchQueryLiteral(['-', ''])).toBeNull();
  });
});

describe('buildExcerpt', () => {
  function excerptFor(raw: string, term: string, width?: number): string {
    const { text, offsets } = normalize(raw);
    const match = findFirstMatch(text, [term]);
    if (match === null) throw new Error(`no match for ${term}`);
    return buildExcerpt(raw, offsets, match.start, match.end, width);
  }

  it('returns short text whole, whitespace collapsed, without ellipses', () => {
    expect(excerptFor('Kitchen:\n  30" gas range\tby Wolf', '30 inch gas range')).toBe(
      'Kitchen: 30" gas range by Wolf',
    );
  });

  it('centres about width characters of the raw text on the match and cuts at words', () => {
    const before = Array.from({ length: 60 }, (_, i) => `before${i}`).join(' ');
    const after = Array.from({ length: 60 }, (_, i) => `after${i}`).join(' ');
    const raw = `${before} Quartz\u00C2\u00A0Counter-\ntops ${after}`;
    const excerpt = excerptFor(raw, 'quartz countertops');
    expect(excerpt.startsWith('\u2026before')).toBe(true);
    expect(excerpt.endsWith('\u2026')).toBe(true);
    expect(excerpt).toContain('Quartz\u00C2 Counter- tops');
    const body = excerpt.slice(1, -1);
    expect(body.length).toBeGreaterThan(150);
    expect(body.length).toBeLessThanOrEqual(200);
    // whole words only at both ends
    expect(before.split(' ')).toContain(body.split(' ')[0]);
    expect(after.split(' ')).toContain(body.split(' ').at(-1));
    const left = body.indexOf('Quartz');
    const right = body.length - (left + 'Quartz\u00C2 Counter- tops'.length);
    expect(Math.abs(left - right)).toBeLessThan(30);
  });

  it('gives the unused context of one side to the other near the start', () => {
    const raw = `Quartz countertops ${Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ')}`;
    const excerpt = excerptFor(raw, 'quartz countertops');
    expect(excerpt.startsWith('Quartz countertops word0')).toBe(true);
    expect(excerpt.endsWith('\u2026')).toBe(true);
    expect(excerpt.length).toBeGreaterThan(180);
    expect(excerpt.length).toBeLessThanOrEqual(201);
  });

  it('honours a custom width', () => {
    const raw = `${'alpha '.repeat(40)}dishwasher${' omega'.repeat(40)}`;
    const excerpt = excerptFor(raw, 'dishwasher', 40);
    expect(excerpt).toBe('\u2026alpha alpha dishwasher omega omega\u2026');
  });
});

describe('numbers are whole in the post-filter', () => {
  const found = (text: string, term: string) =>
    findFirstMatch(normalizeText(text), [normalizeText(term), ...numberReadings(normalizeText(term))]) !==
    null;

  it.each([
    ['Suite A is 1,850 sq. ft.', '850 sq ft', false],
    ['Suite A is 1\u00A0850 sq ft', '850 sq ft', false],
    // one plain space may be a column gap: both readings are found
    ['Suite A is 1 850 sq ft', '850 sq ft', true],
    ['Suite A is 1 850 sq ft', '1,850 sq ft', true],
    ['Suite A is 1\t850 sq ft', '1,850 sq ft', false],
    ['Suite A is 1,600 sq ft', '600 sq ft', false],
    ['Suite A is 1,850 sq. ft.', '1,850 sq ft', true],
    ['Suite A is 1850 sq ft', '1 850 sq ft', true],
    ['Suite A is 1\u2009850 sq ft', '1850 sq ft', true],
    ['2.5 baths', '5 baths', false],
    ['2.5 baths', '2 baths', false],
    ['2 1/2 baths', '2 baths', false],
    ['2 1/2 baths', '2.5 baths', true],
    ['2\u00BD baths', '2 1/2 baths', true],
    ['a 1/2 bath', '1/2 bath', true],
    ['Ceilings are 9 ft. high', '9 ft', true],
    ['Ceilings are 9 ft. Then', '9 feet', true],
    ['soft-close drawers', 'soft close', true],
    ['soft close drawers', 'soft-close', true],
    ['porte cochère', 'porte-cochère', true],
  ])('%j contains %j: %s', (text, term, expected) => {
    expect(found(text, term)).toBe(expected);
  });
});
