import { abbreviationVariants } from './abbreviations.js';
import { compoundVariants, vocabularyCandidates } from './compounds.js';

/** Compound spellings searched besides the synonym variants (`underground` as `under ground`). */
export const MAX_COMPOUND_VARIANTS = 8;

/**
 * Every spelling a query is searched in, from its synonym variants (`expandQuery`): those,
 * their spellings with abbreviation periods added or dropped (src/search/abbreviations.ts), then
 * their joined and split spellings (src/search/compounds.ts) for the words `known` holds. `known`
 * is what the index's vocabulary says of `spellingCandidates(expanded)`.
 */
export function searchSpellings(expanded: readonly string[], known: ReadonlySet<string>): string[] {
  const terms = [...expanded, ...abbreviationVariants(expanded)];
  if (known.size === 0) return terms;
  return [...terms, ...compoundVariants(terms, known).slice(0, MAX_COMPOUND_VARIANTS)];
}

/** The words to look up in the vocabulary for `searchSpellings`. */
export function spellingCandidates(expanded: readonly string[]): string[] {
  return vocabularyCandidates([...expanded, ...abbreviationVariants(expanded)]);
}
