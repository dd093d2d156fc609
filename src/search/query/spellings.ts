import { abbreviationVariants } from './abbreviations.js';
import { compoundVariants } from '../text/compounds.js';
import { numberReadings } from '../text/normalize.js';

/** Compound spellings searched besides the synonym variants (`underground` as `under ground`). */
export const MAX_COMPOUND_VARIANTS = 8;

/**
 * The spellings every search of a query searches: its synonym variants (`expandQuery`), their
 * spellings with abbreviation periods added or dropped (src/search/query/abbreviations.ts), and the
 * other readings of their numbers where a plain space may or may not join digit groups
 * (`numberReadings`: `12,450` is also searched as `12 450`).
 */
export function plainSpellings(expanded: readonly string[]): string[] {
  const spelled = [...expanded, ...abbreviationVariants(expanded)];
  return [...new Set([...spelled, ...spelled.flatMap(numberReadings)])];
}

/**
 * `plain` (plainSpellings) and, for the words `known` holds, their joined and split spellings
 * (src/search/text/compounds.ts). `known` is what the index's vocabulary says of
 * `vocabularyCandidates(plain)` (src/search/query/query-forms.ts keeps both per query).
 */
export function withCompounds(plain: readonly string[], known: ReadonlySet<string>): readonly string[] {
  if (known.size === 0) return plain;
  return [...plain, ...compoundVariants(plain, known).slice(0, MAX_COMPOUND_VARIANTS)];
}
