import { normalizeText } from '../text/normalize.js';

/**
 * The spellings a search covers, for `meta.expanded_terms`. The normalizer folds many printed
 * forms into one (`30"`, `30-inch`, `30 in.`, `30″` and the mojibake `30â€³` are all `30 inch`), so
 * the searched terms alone hide what was tried; this lists the usual printed forms of each term,
 * and only forms that really normalize to it, so the list never claims more than the search does.
 */

/** Upper bound on listed spellings (the searched terms are capped separately). */
export const MAX_SURFACE_FORMS = 64;

const NUMBER = String.raw`\d+(?:[./]\d+)?`;

/** For a unit after a number: the printed forms of `<number> <unit>`. */
const UNIT_FORMS: readonly { pattern: RegExp; forms: (n: string) => string[] }[] = [
  {
    pattern: new RegExp(`(${NUMBER}) square feet`),
    forms: (n) => [`${n} sq ft`, `${n} sq. ft.`, `${n} sf`, `${n} sq-ft`, `${n} square foot`],
  },
  {
    pattern: new RegExp(`(${NUMBER}) inch`),
    forms: (n) => [
      `${n}"`,
      `${n}-inch`,
      `${n} in`,
      `${n} in.`,
      `${n}\u2033`,
      `${n}in`,
      `${n}\u00E2\u20AC\u00B3`,
    ],
  },
  {
    pattern: new RegExp(`(${NUMBER}) feet`),
    forms: (n) => [`${n}'`, `${n} ft`, `${n} ft.`, `${n}-foot`, `${n} foot`, `${n}\u2032`],
  },
];

/** A whole number of four digits or more, printed with thousands separators. */
const LONG_NUMBER = /(?<![\d.,/])(\d{4,})(?![\d.,/])/;

function withThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Printed variants of one normalized term, the term first; each normalizes back to it. */
function formsOf(term: string): string[] {
  const forms = [term];
  for (const { pattern, forms: unitForms } of UNIT_FORMS) {
    const m = pattern.exec(term);
    if (!m) continue;
    for (const printed of unitForms(m[1])) {
      forms.push(term.slice(0, m.index) + printed + term.slice(m.index + m[0].length));
    }
  }
  const long = LONG_NUMBER.exec(term);
  if (long) forms.push(term.replace(long[1], withThousands(long[1])));
  // A two-word compound in its hyphenated spelling (`soft close`, `soft-close`).
  if (/^\p{L}+ \p{L}+$/u.test(term)) forms.push(term.replace(' ', '-'));
  return forms.filter((form) => normalizeText(form) === term);
}

/**
 * The spellings covered by `terms` (already normalized, in searched order), without duplicates:
 * every searched term first, so none is ever cut by the cap, then the printed forms of each.
 */
export function surfaceForms(terms: readonly string[], cap = MAX_SURFACE_FORMS): string[] {
  const out = new Set<string>(terms);
  for (const term of terms) {
    for (const form of formsOf(term)) {
      if (out.size >= Math.max(cap, terms.length)) return [...out];
      out.add(form);
    }
  }
  return [...out];
}
