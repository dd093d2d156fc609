import { readFileSync } from 'node:fs';
import { normalizeText, tokenForm } from '../../../src/search/text/normalize.js';
import {
  expandQuery,
  MAX_EXPANDED_TERMS,
  SYNONYM_GROUPS,
  SYNONYMS_VERSION,
} from '../../../src/search/query/synonyms.js';

describe('expandQuery', () => {
  it.each([
    // [query, normalized query (= first term), terms that must be searched, terms that must not]
    ['30"', '30 inch', ['30 inch'], []],
    [
      '30-inch gas range',
      '30 inch gas range',
      ['30 inch gas ranges'],
      // a gas stove or cooktop is another appliance: never searched for a range
      ['30 inch gas stove', '30 inch gas cooktop'],
    ],
    ['30â€³ Gas Range', '30 inch gas range', ['30 inch gas ranges'], ['30 inch gas stove']],
    ['induction range', 'induction range', ['induction ranges'], ['induction cooktop']],
    [
      'quartz counter-tops',
      'quartz counter tops',
      ['quartz countertops', 'quartz countertop', 'quartz counters'],
      [],
    ],
    ['Countertops', 'countertops', ['counter tops', 'countertop', 'counters'], []],
    ['back splash', 'back splash', ['backsplash'], []],
    ['floor-to-ceiling windows', 'floor to ceiling windows', ['floor to ceiling window'], []],
    ['floor-to-ceiling', 'floor to ceiling', [], []],
    ['Stainless Steel Appliances', 'stainless steel appliances', [], ['dishwasher']],
    ['ensuite', 'ensuite', ['en suite'], []],
    ['walk in closet', 'walk in closet', ['walk in closets', 'walkin closet'], []],
    ['dish washer', 'dish washer', ['dishwasher'], []],
    ['9 foot ceilings', '9 feet ceilings', [], []],
    ['850 sq. ft.', '850 square feet', [], []],
    // broad and abstract terms do not turn into lists of features (spec rule 4)
    ['appliances', 'appliances', [], ['dishwasher', 'refrigerator', 'cooktop']],
    ['luxury', 'luxury', [], ['quartz', 'hardwood']],
    ['amenities', 'amenities', [], ['gym', 'party room']],
    // one-way groups stay one-way
    ['gas stove', 'gas stove', [], ['gas range']],
    ['counters', 'counters', [], ['countertops']],
    // a form only matches whole words of the query
    ['gymnasium', 'gymnasium', [], ['fitness centre']],
    ['3 in 1', '3 in 1', [], ['3 inch 1']],
    // punctuation around the whole query delimits it; inside it is kept
    ['"Walk-in Closet"', 'walk in closet', ['walk in closets'], ['"walk in closet"']],
    ['countertops?', 'countertops', ['counter tops'], []],
    ['‘24/7 concierge’', '24/7 concierge', ['24 hour concierge'], []],
    ['30" x 60"', '30 inch x 60 inch', [], []],
  ])('%j', (query, normalized, mustInclude, mustExclude) => {
    const { normalizedQuery, terms } = expandQuery(query);
    expect(normalizedQuery).toBe(normalized);
    expect(terms[0]).toBe(normalized);
    for (const term of mustInclude) expect(terms).toContain(term);
    for (const term of mustExclude) expect(terms).not.toContain(term);
    expect(new Set(terms).size).toBe(terms.length);
    for (const term of terms) expect(normalizeText(term)).toBe(term);
  });

  it('returns no terms for a query without letters or digits', () => {
    expect(expandQuery(' -- & ')).toEqual({ normalizedQuery: '', terms: [] });
    expect(expandQuery('')).toEqual({ normalizedQuery: '', terms: [] });
  });

  it('replaces each matched phrase of a longer query, fewest substitutions first', () => {
    const { terms } = expandQuery('Dishwasher and Gym');
    expect(terms).toHaveLength(12);
    expect(terms[0]).toBe('dishwasher and gym');
    const substitutions = terms.map((term) => {
      const [appliance, room] = term.split(' and ');
      return Number(appliance !== 'dishwasher') + Number(room !== 'gym');
    });
    expect(substitutions).toEqual([0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2]);
    expect(terms).toContain('dish washer and fitness centre');
    expect(expandQuery('quartz countertops and stainless steel backsplash').terms).toEqual(
      expect.arrayContaining([
        'quartz counter tops and stainless steel backsplash',
        'quartz countertops and stainless steel back splash',
        'quartz counter tops and stainless steel back splash',
      ]),
    );
  });

  it('caps the variants deterministically', () => {
    const query = 'countertops backsplash dishwasher range hood cooktop townhouse floor plan pot lights';
    const first = expandQuery(query).terms;
    expect(first).toHaveLength(MAX_EXPANDED_TERMS);
    expect(expandQuery(query).terms).toEqual(first);
  });
});

describe('synonym data', () => {
  it('is versioned', () => {
    const file = JSON.parse(
      readFileSync(new URL('../../../src/search/query/synonyms.v2.json', import.meta.url), 'utf8'),
    ) as { version: string };
    expect(SYNONYMS_VERSION).toBe(file.version);
    expect(SYNONYMS_VERSION.length).toBeGreaterThan(0);
  });

  it('loads every group with searchable, normalized, distinct forms', () => {
    expect(SYNONYM_GROUPS.length).toBeGreaterThanOrEqual(40);
    const seen = new Set<string>();
    for (const group of SYNONYM_GROUPS) {
      expect(group.terms.length).toBeGreaterThan(0);
      for (const term of [...group.terms, ...group.alsoSearch]) {
        expect(normalizeText(term)).toBe(term);
        expect(tokenForm(term).length).toBeGreaterThan(0);
      }
      for (const term of group.terms) {
        expect(seen.has(term)).toBe(false);
        seen.add(term);
      }
    }
  });

  it('expands every form of a multi-way group to all the others', () => {
    for (const group of SYNONYM_GROUPS) {
      for (const term of group.terms) {
        const { terms } = expandQuery(term);
        expect(terms.slice().sort()).toEqual([...group.terms, ...group.alsoSearch].sort());
      }
    }
  });
});
