/**
 * Abbreviations that documents write with or without their period: `St. Lawrence` and
 * `St Lawrence`, `approx.` and `approx`. The normalizer keeps such a period (it cannot tell `St.`
 * from the end of a sentence), so a query word on this list is also searched with its period
 * added or dropped. Units (`ft.`, `in.`, `sq. ft.`) need no entry: the normalizer spells them out.
 * Only words that are abbreviations whichever way they are written are listed; a toggle changes
 * one period, never a word, so it cannot find a different thing.
 */
const ABBREVIATIONS = new Set([
  'approx',
  'apt',
  'ave',
  'bldg',
  'blvd',
  'cres',
  'dr',
  'hwy',
  'incl',
  'mt',
  'no',
  'ph',
  'rd',
  'st',
  'ste',
]);

/** At most this many spellings per term (2 abbreviations in one term give 3 besides itself). */
const MAX_PER_TERM = 3;

function toggled(word: string): string | null {
  if (word.endsWith('.') && ABBREVIATIONS.has(word.slice(0, -1))) return word.slice(0, -1);
  if (ABBREVIATIONS.has(word)) return `${word}.`;
  return null;
}

/**
 * The spellings of normalized `terms` with abbreviation periods added or dropped, in a stable
 * order, excluding the terms themselves: each abbreviation toggled alone, then all at once.
 */
export function abbreviationVariants(terms: readonly string[]): string[] {
  const seen = new Set(terms);
  const out: string[] = [];
  for (const term of terms) {
    const words = term.split(' ');
    const at = words.flatMap((w, i) => (toggled(w) === null ? [] : [i]));
    const variants = at.map((i) => words.map((w, j) => (j === i ? toggled(w)! : w)).join(' '));
    if (at.length > 1) variants.push(words.map((w) => toggled(w) ?? w).join(' '));
    for (const variant of variants.slice(0, MAX_PER_TERM)) {
      if (!seen.has(variant)) {
        seen.add(variant);
        out.push(variant);
      }
    }
  }
  return out;
}
