import { compoundVariants, vocabularyCandidates, vocabularyOf } from '../../../src/search/compounds.js';

const vocabulary = new Set(
  vocabularyOf([
    'the rapist spoke under ground parking soft close softclose d en den porte cochère counter tops',
  ]),
);

describe('compound spellings (issue 13)', () => {
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
