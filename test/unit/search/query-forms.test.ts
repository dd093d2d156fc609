import fc from 'fast-check';
import { lexemesOf, searchQueryLiteral } from '../../../src/search/text/lexemes.js';
import { queryWords, termForms } from '../../../src/search/query/query-forms.js';
import { vocabularyCandidates } from '../../../src/search/text/compounds.js';
import { plainSpellings } from '../../../src/search/query/spellings.js';
import { surfaceForms } from '../../../src/search/query/surface-forms.js';
import { expandQuery } from '../../../src/search/query/synonyms.js';

/** What query-forms keeps must be what the functions it stands in for give, for every query. */
describe('queryWords and termForms (kept per distinct query)', () => {
  const QUERIES = [
    'wine fridge',
    '30 inch gas range',
    'quartz countertops',
    'walk-in closet',
    'st. lawrence',
    '"soft close"',
    '9 ft. ceilings',
  ];

  it('gives what the search would work out afresh', () => {
    const check = (q: string) => {
      const expanded = expandQuery(q).terms;
      const words = queryWords(q);
      expect([...words.plain]).toEqual(plainSpellings(expanded));
      expect([...words.candidates]).toEqual(vocabularyCandidates(plainSpellings(expanded)));
      const forms = termForms(words.plain);
      const tsquery = searchQueryLiteral(words.plain);
      expect(forms.tsquery).toBe(tsquery);
      expect([...forms.lexemes]).toEqual(tsquery === null ? [] : lexemesOf(tsquery));
      expect([...forms.surface]).toEqual(surfaceForms(words.plain));
    };
    QUERIES.forEach(check);
    fc.assert(fc.property(fc.string({ maxLength: 40 }), check), { numRuns: 300 });
  });

  it('works a repeated query out once and shares it frozen', () => {
    const first = queryWords('wine fridge');
    expect(queryWords('wine fridge')).toBe(first);
    expect(Object.isFrozen(first.plain) && Object.isFrozen(first.candidates)).toBe(true);
    const forms = termForms(first.plain);
    expect(termForms([...first.plain])).toBe(forms);
    expect(Object.isFrozen(forms.surface) && Object.isFrozen(forms.lexemes)).toBe(true);
    expect(() => (forms.surface as string[]).push('x')).toThrow(TypeError);
  });

  it('keeps the boundaries between terms', () => {
    expect(termForms(['quartz countertops']).tsquery).not.toBe(termForms(['quartz', 'countertops']).tsquery);
    expect(termForms(['a,b']).surface).not.toBe(termForms(['a', 'b']).surface);
  });

  it('is bounded: past 1,000 distinct queries the oldest is worked out again, equal', () => {
    const first = queryWords('bounded first query');
    for (let i = 0; i < 1000; i++) queryWords(`bounded filler ${i}`);
    const again = queryWords('bounded first query');
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });

  it('holds a bounded number of characters: heavy unique queries push the oldest out long before 1,000', () => {
    // About 190 characters of synonym-bearing words: 128 spellings, ~25,000 characters of words and
    // ~100,000 of forms each.
    const words =
      'fridge refrigerator countertops washer dryer stove range oven dishwasher microwave sq ft st. ave. condo townhouse balcony den ensuite';
    const heavy = (i: number) => `${words} ${i}`;
    const first = queryWords(heavy(0));
    const firstForms = termForms(first.plain);
    expect(first.plain.length).toBeGreaterThan(100);
    for (let i = 1; i <= 60; i++) termForms(queryWords(heavy(i)).plain);
    const again = queryWords(heavy(0));
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
    expect(termForms(again.plain)).not.toBe(firstForms);
    // A light query asked after them is kept.
    const light = queryWords('wine fridge');
    expect(queryWords('wine fridge')).toBe(light);
  });
});
