import { projectPath } from '../../../src/search/query/statements.js';
import { lexemesOf, searchQueryLiteral } from '../../../src/search/text/lexemes.js';
import { expandQuery } from '../../../src/search/query/synonyms.js';

const tsquery = (q: string) => searchQueryLiteral(expandQuery(q).terms)!;

describe('lexemesOf', () => {
  it('reads every quoted lexeme of a tsquery literal, unescaped', () => {
    expect(lexemesOf(`('quartz' <-> 'countertops') | 'it''s' | 'a\\\\b'`)).toEqual([
      'quartz',
      'countertops',
      "it's",
      'a\\b',
    ]);
  });

  it('reads the lexemes the search builds for a phrase', () => {
    expect(new Set(lexemesOf(tsquery('wine fridge')))).toContain('fridge');
  });
});

describe('projectPath', () => {
  const frequencies = new Map([
    ['kitchen', 0.18],
    ['quartz', 0.05],
    ['countertops', 0.05],
    ['drapery', 0.004],
    ['pleat', 0.004],
    ['fridge', 0.006],
  ]);

  it('starts from the index only when the words together are in under 1% of chunks', () => {
    // Words the statistics do not list are rarer than any they do.
    expect(projectPath(lexemesOf(tsquery('wine cellar')), frequencies)).toBe('index');
    expect(projectPath(lexemesOf(tsquery('pinch pleat drapery')), frequencies)).toBe('index');
    expect(projectPath(lexemesOf(tsquery('kitchen')), frequencies)).toBe('chunks');
    expect(projectPath(lexemesOf(tsquery('quartz countertops')), frequencies)).toBe('chunks');
    // Rare apart, common together: 0.4% + 0.6% is not under 1%.
    expect(projectPath(['drapery', 'fridge'], frequencies)).toBe('chunks');
    expect(projectPath(lexemesOf(tsquery('kitchen drapery')), frequencies)).toBe('chunks');
  });

  it("reads the project's chunks without statistics or lexemes", () => {
    expect(projectPath(lexemesOf(tsquery('wine cellar')), null)).toBe('chunks');
    expect(projectPath([], frequencies)).toBe('chunks');
  });
});
