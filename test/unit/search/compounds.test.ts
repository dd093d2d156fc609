import { abbreviationVariants } from '../../../src/search/query/abbreviations.js';
import { compoundVariants, vocabularyCandidates, vocabularyOf } from '../../../src/search/text/compounds.js';

const vocabulary = new Set(
  vocabularyOf([
    'the rapist therapist spoke under ground parking soft close softclose d en den porte cochère counter tops',
    'no table notable every one everyone walk out walkout terrace',
  ]),
);

describe('compound spellings', () => {
  it.each([
    [['underground'], ['under ground']],
    [['underground parking'], ['under ground parking']],
    [['soft close'], ['softclose']],
    [['countertops'], ['counter tops']],
    // guarded splits: a closed-class half, a half under 3 letters, a half the corpus never uses
    [['therapist'], []],
    [['den'], []],
    [['ground'], []],
    [['spokes'], []],
    // a particle may end a compound, both ways
    [['walkout terrace'], ['walk out terrace']],
    [['walk out terrace'], ['walkout terrace']],
    // joins pass the same test as splits: a function word or a short word never joins
    [['the rapist'], []],
    [['no table'], []],
    [['every one'], []],
    [['everyone'], []],
  ])('%j → %j', (terms, expected) => {
    expect(compoundVariants(terms, vocabulary)).toEqual(expected);
  });

  it('never offers a variant whose words the vocabulary lacks, nor a search term itself', () => {
    expect(compoundVariants(['underground'], new Set(['under']))).toEqual([]);
    expect(compoundVariants(['soft close', 'softclose'], vocabulary)).toEqual([]);
  });

  it('asks the vocabulary only for halves it may use', () => {
    const asked = vocabularyCandidates(['therapist']);
    expect(asked).not.toContain('the');
    expect(asked).toEqual(expect.arrayContaining(['thera', 'pist']));
    expect(vocabularyCandidates(['den'])).toEqual([]);
    expect(vocabularyCandidates(['30 inch'])).toEqual([]);
  });

  it('records letter words only', () => {
    expect(vocabularyOf(['30 inch soft close, 2.5 baths']).sort()).toEqual([
      'baths',
      'close',
      'inch',
      'soft',
    ]);
  });
});

describe('abbreviation periods', () => {
  it.each([
    [['st. lawrence market'], ['st lawrence market']],
    [['st lawrence market'], ['st. lawrence market']],
    [['approx. 12 feet'], ['approx 12 feet']],
    // two abbreviations: each alone, then both
    [['no. 5 st'], ['no 5 st', 'no. 5 st.', 'no 5 st.']],
    // words off the list, and units the normalizer already spells out, are left alone
    [['stone counters'], []],
    [['30 inch gas range'], []],
  ])('%j → %j', (terms, expected) => {
    expect(abbreviationVariants(terms)).toEqual(expected);
  });

  it('never repeats a search term', () => {
    expect(abbreviationVariants(['st lawrence', 'st. lawrence'])).toEqual([]);
  });
});
