import { abbreviationVariants } from './abbreviations.js';
import { compoundVariants } from './compounds.js';

/** Compound spellings searched besides the synonym variants (`underground` as `under ground`). */
export const MAX_COMPOUND_VARIANTS = 8;

/**
 * The spellings every search of a query searches: its synonym variants (`expandQuery`) and their
 * spellings with abbreviation periods added or dropped (src/search/abbreviations.ts).
 */
export function plainSpellings(expanded: readonly string[]): string[] {
  return [...expanded, ...abbreviationVariants(expanded)];
}

/**
 * `plain` (plainSpellings) and, for the words `known` holds, their joined and split spellings
 * (src/search/compounds.ts). `known` is what the index's vocabulary says of
 * `vocabularyCandidates(plain)` (src/search/query-forms.ts keeps both per query).
 */
export function withCompounds(plain: readonly string[], known: ReadonlySet<string>): readonly string[] {
  if (known.size === 0) return plain;
  return [...plain, ...compoundVariants(plain, known).slice(0, MAX_COMPOUND_VARIANTS)];
}
