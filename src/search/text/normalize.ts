import { identityMapped, MappedTextBuilder, replaceMapped, type MappedText } from './mapped-text.js';
import { repairMojibake } from './mojibake.js';

/**
 * The one normalizer for indexing, queries and the strict post-filter. Stored chunks record the
 * version they were normalized with: bump it whenever the output of `normalize` changes, and the
 * re-derivation job (src/search/text/rederive.ts) derives every older chunk again from its raw text,
 * instead of the index silently disagreeing with new queries. How numbers are read: see
 * `digitGaps` below and docs/search.md.
 */
export const NORMALIZER_VERSION = 3;

export interface NormalizedText {
  /** Canonical text: lower-case, single spaces, folded punctuation, canonical units. */
  readonly text: string;
  /**
   * `offsets[i]` is the index in the raw input that normalized unit `i` came from; the extra last
   * entry is the raw length. Normalized [s, e) maps to raw [offsets[s], offsets[e]).
   */
  readonly offsets: readonly number[];
}

/**
 * A pass over text that only some texts need: `needs` is a plain test that every match of the
 * pass's pattern also passes, so a text that fails it is left as it is without running the
 * pattern (most of these patterns start with a lookbehind, tried at every position).
 */
function onlyIf(needs: RegExp, pass: (source: MappedText) => MappedText) {
  return (source: MappedText): MappedText => (needs.test(source.text) ? pass(source) : source);
}

/**
 * A character that can be part of a word: a letter, a digit, or a combining mark (NFKC leaves
 * some, such as the dot of a lower-cased İ, and a mark must not split the word it belongs to).
 * Everything else separates words, in `tokenForm` and in the post-filter alike.
 */
export const WORD_CHAR = /[\p{L}\p{M}\p{N}]/u;

/**
 * Quote, prime and dash look-alikes folded to ASCII. Runs before NFKC as well, because NFKC would
 * turn ″ into two primes and ´ into a space plus a combining accent.
 */
const PUNCTUATION_FOLDS: Readonly<Record<string, string>> = {
  '\u2018': "'",
  '\u2019': "'",
  '\u201A': "'",
  '\u201B': "'",
  '\u2032': "'",
  '\u2035': "'",
  '\u00B4': "'",
  '\u0060': "'",
  '\u02B9': "'",
  '\u02BC': "'",
  '\u201C': '"',
  '\u201D': '"',
  '\u201E': '"',
  '\u201F': '"',
  '\u2033': '"',
  '\u2036': '"',
  '\u02BA': '"',
  '\u02DD': '"',
  '\u2010': '-',
  '\u2011': '-',
  '\u2012': '-',
  '\u2013': '-',
  '\u2014': '-',
  '\u2015': '-',
  '\u2043': '-',
  '\u2212': '-',
  '\uFE58': '-',
  '\uFE63': '-',
  '\uFF0D': '-',
  // NFKC writes ½ as 1⁄2 with the fraction slash.
  '\u2044': '/',
};
const PUNCTUATION = new RegExp(`[${Object.keys(PUNCTUATION_FOLDS).join('')}]`, 'gu');

function foldPunctuation(source: MappedText): MappedText {
  return replaceMapped(source, PUNCTUATION, (match) => PUNCTUATION_FOLDS[match[0]]);
}

/**
 * Code points that NFKC may merge into the character before them: combining marks, Hangul vowel
 * and final jamo, and the half-width and combining kana voicing marks.
 */
const COMBINES_BACKWARD = /\p{M}|[\u1160-\u11FF\uD7B0-\uD7FF\uFF9E\uFF9F]/u;

/**
 * NFKC (ligatures, full-width forms, no-break spaces, superscripts) applied per cluster: a cluster
 * is a code point and whatever may combine with it, so each output character maps back to the
 * cluster it came from and origins stay in order even when marks are reordered.
 */
function nfkc(source: MappedText): MappedText {
  const { text } = source;
  if (text === text.normalize('NFKC')) return source;
  const builder = new MappedTextBuilder(source);
  let i = 0;
  while (i < text.length) {
    const start = i;
    i += String.fromCodePoint(text.codePointAt(i)!).length;
    while (i < text.length) {
      const next = String.fromCodePoint(text.codePointAt(i)!);
      if (!COMBINES_BACKWARD.test(next)) break;
      i += next.length;
    }
    const cluster = text.slice(start, i);
    const normalized = cluster.normalize('NFKC');
    if (normalized === cluster) builder.keep(start, i);
    else builder.emit(normalized, start);
  }
  return builder.build();
}

/**
 * Left halves of compounds that keep their hyphen when a line break falls right after it
 * (`walk-` / `in closet` is "walk-in", not "walkin"). Any other word broken by a hyphen at the end
 * of a line and continued in lower case is a typesetting break and is joined (`counter-` / `tops`).
 */
const HYPHENATED_PREFIXES = new Set([
  'all',
  'built',
  'co',
  'eat',
  'en',
  'energy',
  'floor',
  'full',
  'high',
  'in',
  'low',
  'move',
  'multi',
  'non',
  'open',
  'pet',
  'pre',
  'roof',
  'self',
  'semi',
  'south',
  'north',
  'east',
  'west',
  'stainless',
  'state',
  'two',
  'three',
  'four',
  'walk',
  'well',
]);

/**
 * Soft hyphens, zero-width and other invisible format characters disappear; a soft hyphen or a
 * hyphen at a line end joins the word around the break. This must run before lower-casing (the
 * case of the next line decides) and before whitespace collapse (the line break decides).
 */
const BREAKS =
  /\u00AD(?:[ \t]*(?:\r\n|\r|\n)[ \t]*)?|\p{Cf}|(?<=([\p{L}\p{M}\p{N}]+))-[ \t]*(?:\r\n|\r|\n)\s*(?=(\p{L}|\p{N}))/gu;

const joinBreaks = onlyIf(/\p{Cf}|-[ \t]*[\r\n]/u, (source) =>
  replaceMapped(source, BREAKS, (match) => {
    const [whole, before, after] = match;
    if (!whole.startsWith('-')) return '';
    const joinsWord =
      /\p{L}$/u.test(before) &&
      /\p{Ll}/u.test(after) &&
      !HYPHENATED_PREFIXES.has(before.toLowerCase().replace(/^.*[^\p{L}]/u, ''));
    return joinsWord ? '' : '-';
  }),
);

/** What lowerCase must lower code point by code point (see there). */
const LOWER_CASE_BY_CODE_POINT = /[\u0130\u03A3\uD800-\uDFFF]/;

/**
 * Lower case, code point by code point. Where no code point changes its length (İ is the only one
 * that does) and no upper-case sigma depends on its context (the whole-string toLowerCase writes a
 * word-final Σ as ς), lower-casing the whole string gives the same text unit for unit, so the
 * origins stay as they are; an astral letter is mapped per code point so both of its units keep
 * the origin of its first, as a replacement does.
 */
function lowerCase(source: MappedText): MappedText {
  const { text } = source;
  if (!LOWER_CASE_BY_CODE_POINT.test(text)) {
    const lower = text.toLowerCase();
    return lower === text ? source : { text: lower, origins: source.origins };
  }
  return replaceMapped(source, /\p{Changes_When_Lowercased}/gu, (match) => match[0].toLowerCase());
}

/**
 * Runs of white space and control characters become one space, and none is left at either end. A
 * single space between two words is already that, so the pattern only finds the runs that change:
 * two or more characters, one that is not a space, or a space at either end.
 */
const WHITESPACE_TO_COLLAPSE = /[\s\p{Cc}]{2,}|[^\S ]|\p{Cc}|^ | $/gu;

function collapseWhitespace(source: MappedText): MappedText {
  return replaceMapped(source, WHITESPACE_TO_COLLAPSE, (match, text) =>
    match.index === 0 || match.index + match[0].length === text.length ? '' : ' ',
  );
}

/**
 * A unit right after a number: square feet first (so `sq ft` is not read as feet), then feet, then
 * inches. A bare `in` is a unit when attached (`30in`) or when no word follows (`30 in.`, `30 in`),
 * not in `3 in 1` or `3-in-1`.
 * Marks: `"`, `''` and U+FFFD (an inch mark lost in extraction) are inches, a lone `'` is feet
 * unless a letter follows (`1990's`).
 */
const UNIT_AFTER_NUMBER =
  /(?<=\d)(?:("|''|\uFFFD)|('(?!['\p{L}]))|( ?-? ?)(sq\.? ?-?ft\.?|sq\.? ?feet|square ?-?(?:feet|foot|ft\.?)|sf|s\.f\.|ft2|feet|foot|ft\.?|inches|inch|in\.|in)(?![\p{L}\p{M}\p{N}]))/gu;

/** Square-feet spellings that need no number before them (`price per sq. ft.`). */
const SQUARE_FEET_WORDS =
  /(?<![\p{L}\p{M}\p{N}])(?:sq\.? ?-?ft\.?|sq\.? ?feet|square ?-?(?:feet|foot|ft\.?))(?![\p{L}\p{M}\p{N}])/gu;

/** `12x24`, `30 inch x60 inch`: the dimension sign becomes a word of its own. */
const DIMENSION_SIGN = /(?<=\d|\d inch|\d feet) ?[x\u00D7] ?(?=\d)/gu;

/**
 * Canonical unit words. None of them is an abbreviation that may swallow a following period
 * (`ft.`), so a sentence-ending period after a unit survives a second normalization unchanged.
 */
type Unit = 'inch' | 'feet' | 'square feet';

function unitOf(match: RegExpExecArray): Unit {
  const [, inchMark, footMark, , word] = match;
  if (inchMark !== undefined) return 'inch';
  if (footMark !== undefined) return 'feet';
  if (/^(?:sq|square|sf|s\.f\.|ft2)/.test(word)) return 'square feet';
  if (/^(?:feet|foot|ft)/.test(word)) return 'feet';
  return 'inch';
}

function followedByWord(text: string, index: number): boolean {
  return WORD_CHAR.test(String.fromCodePoint(text.codePointAt(index) ?? 0x20));
}

const withSquareFeetWords = onlyIf(/sq/, (source) =>
  replaceMapped(source, SQUARE_FEET_WORDS, (match, text) => {
    const end = match.index + match[0].length;
    return `square feet${followedByWord(text, end) ? ' ' : ''}`;
  }),
);
const withDimensionSigns = onlyIf(/[x\u00D7] ?\d/, (source) =>
  replaceMapped(source, DIMENSION_SIGN, () => ' x '),
);

function canonicalizeUnits(source: MappedText): MappedText {
  const withUnits = replaceMapped(source, UNIT_AFTER_NUMBER, (match, text) => {
    const end = match.index + match[0].length;
    const [, , , separator, word] = match;
    // `3 in 1`, `3-in-1`: a bare `in` that is not attached to its number and has a word after it
    // is the preposition.
    if (word === 'in' && separator !== '' && /^[ -]?[\p{L}\p{M}\p{N}]/u.test(text.slice(end, end + 3))) {
      return null;
    }
    return ` ${unitOf(match)}${followedByWord(text, end) ? ' ' : ''}`;
  });
  return withDimensionSigns(withSquareFeetWords(withUnits));
}

/** Vulgar fractions as numerator and denominator. */
const VULGAR_FRACTIONS: Readonly<Record<string, [number, number]>> = {
  '\u00BD': [1, 2],
  '\u00BC': [1, 4],
  '\u00BE': [3, 4],
  '\u215B': [1, 8],
  '\u215C': [3, 8],
  '\u215D': [5, 8],
  '\u215E': [7, 8],
  '\u2153': [1, 3],
  '\u2154': [2, 3],
};
const VULGAR_CHAR = `[${Object.keys(VULGAR_FRACTIONS).join('')}]`;
const VULGAR = new RegExp(`(\\d*) ?(${VULGAR_CHAR})`, 'gu');
const ANY_VULGAR = new RegExp(VULGAR_CHAR, 'u');

/** `2` and `1/2` as one number: a decimal when the fraction has one (halves, quarters, eighths). */
function mixedNumber(whole: string, numerator: number, denominator: number): string {
  const exact = denominator === 2 || denominator === 4 || denominator === 8;
  if (!whole) return `${numerator}/${denominator}`;
  if (!exact || numerator >= denominator) return `${whole} ${numerator}/${denominator}`;
  return `${whole}${(numerator / denominator).toString().slice(1)}`;
}

/**
 * Vulgar fractions before NFKC, which would write `2½` as `21⁄2`: `2½` is `2.5`, a lone `½` is
 * `1/2`.
 */
const vulgarFractions = onlyIf(ANY_VULGAR, (source) =>
  replaceMapped(source, VULGAR, (match) => {
    const [numerator, denominator] = VULGAR_FRACTIONS[match[2]];
    return mixedNumber(match[1], numerator, denominator);
  }),
);

/**
 * How numbers are read (docs/search.md, "How numbers are read"). A number is read as the page
 * shows it, and what separates two digit groups decides whether they are one number:
 *
 * - A comma between groups is a thousands separator: `1,850` is `1850`, `$1,250,000` is
 *   `$1250000`. A comma-grouped number is complete: a space group after it is another number
 *   (`$650,000 600 sq ft` is `$650000 600 square feet`, a price beside a size).
 * - A no-break, narrow no-break, thin or figure space between groups is a separator too: it is
 *   how typesetters (and French-Canadian documents) keep `1 250` together, and nobody types one
 *   between columns: `1\u00A0250` is `1250`.
 * - A wide gap between two numbers (a tab, two or more spaces, any other run of white space but
 *   one space or one line break) is a table's column gap: the numbers stay apart and the gap is
 *   written ` | ` so that no phrase runs across it (`Unit 12` ⇥ `450 sq ft` is
 *   `unit 12 | 450 square feet`: `450 sq ft` is found, `12,450 sq ft` is not). Extraction writes a
 *   tab where the page leaves a gap wider than a word space (src/ingestion/pdf-text.ts).
 * - One plain space (or one line break) between groups is ambiguous: a thousands separator in
 *   some typing habits, a word space between two numbers in others. The normalized text keeps the
 *   groups apart (`12 450`), and a query is searched in both readings (`numberReadings`): `450`
 *   is found there, and so is `12,450`, each only where the text's spacing allows it.
 *
 * Then a whole number and a fraction, `2 1/2`, are one number: `2.5` where the fraction has an
 * exact decimal. The separators are read before NFKC (which would make every space the same) and
 * the commas last, on final spacing, so normalizing twice changes nothing.
 */
const GROUP_SEPARATOR = '[\\u00A0\\u2007\\u2009\\u202F]';
const NUMBER_BEFORE = String.raw`(?<![\p{L}\p{M}\p{N}]|\p{N}[.,/])`;
const NUMBER_AFTER = String.raw`(?![\p{N}]|[.,/]\p{N})`;
const SEPARATED_GROUPS = new RegExp(
  `${NUMBER_BEFORE}\\d{1,3}(?:${GROUP_SEPARATOR}\\d{3})+${NUMBER_AFTER}`,
  'gu',
);
const COLUMN_GAP = /(?<=\p{Nd})\s+(?=\p{Nd})/gu;
/**
 * White space between two digits that is not a column gap: one space, one line break (a space
 * beside it is the line's own), one separator.
 */
const NOT_A_GAP = /^(?: |(?: ?(?:\r\n|\r|\n) ?)|[\u00A0\u2007\u2009\u202F])$/u;

const joinSeparatedGroups = onlyIf(new RegExp(`\\d${GROUP_SEPARATOR}\\d{3}`, 'u'), (source) =>
  replaceMapped(source, SEPARATED_GROUPS, (match) => match[0].replace(new RegExp(GROUP_SEPARATOR, 'gu'), '')),
);
const markColumnGaps = onlyIf(/\p{Nd}(?:\s{2,}|[^\S \r\n\u00A0\u2007\u2009\u202F])\p{Nd}/u, (source) =>
  replaceMapped(source, COLUMN_GAP, (match) => (NOT_A_GAP.test(match[0]) ? null : ' | ')),
);

/** Digit groups by what separates them, while the page's own white space is still there. */
function digitGaps(source: MappedText): MappedText {
  return markColumnGaps(joinSeparatedGroups(source));
}

const DIGIT_GROUPS = new RegExp(`${NUMBER_BEFORE}\\d{1,3}(?:,\\d{3})+${NUMBER_AFTER}`, 'gu');
const MIXED_FRACTION = /(?<![\p{L}\p{M}\p{N}]|\p{N}[.,/])(\d+) (\d+)\/(\d+)(?![\p{N}]|[./]\p{N})/gu;

const groupDigits = onlyIf(/\d,\d{3}/, (source) =>
  replaceMapped(source, DIGIT_GROUPS, (match) => match[0].replaceAll(',', '')),
);
const joinMixedFractions = onlyIf(/\d \d+\/\d/, (source) =>
  replaceMapped(source, MIXED_FRACTION, (match) => mixedNumber(match[1], Number(match[2]), Number(match[3]))),
);

/** Digit groups apart by one plain space in normalized text: ambiguous (see above). */
const SPACED_GROUPS = new RegExp(`${NUMBER_BEFORE}\\d{1,3}(?: \\d{3})+${NUMBER_AFTER}`, 'gu');
/** A whole number long enough to have been written in groups. */
const LONG_WHOLE = new RegExp(`${NUMBER_BEFORE}\\d{4,}${NUMBER_AFTER}`, 'gu');

/**
 * The other readings of a normalized term's numbers, for the query side of the ambiguous plain
 * space: every spaced chain joined (`12 450` → `12450`), and every long whole number spaced in
 * groups of three (`12450` → `12 450`, `$749900` → `$749 900`). Searching a term and its readings
 * finds `12,450` where a text's `12 450` may be one number and nowhere else: a text's column gap
 * is ` | `, and a comma or no-break space has already joined its groups. The readings are plain
 * phrases, so the pre-filter and the post-filter agree on them as on any term. Each plain space
 * is read on its own (`12 450 000` holds `12 450` in one of its readings).
 */
export function numberReadings(term: string): string[] {
  if (!/\d/.test(term)) return [];
  const joined = term.replace(SPACED_GROUPS, (chain) => chain.replaceAll(' ', ''));
  const spaced = term.replace(LONG_WHOLE, (digits) => digits.replace(/\B(?=(?:\d{3})+$)/g, ' '));
  return [...new Set([joined, spaced])].filter((reading) => reading !== term);
}

function wholeNumbers(source: MappedText): MappedText {
  return joinMixedFractions(groupDigits(source));
}

/**
 * A hyphen between two word characters is a space: `soft-close` is `soft close`, `porte-cochère`
 * is `porte cochère`, so every hyphen and space spelling of a compound is one phrase. Runs after
 * line-end hyphens are resolved (`joinBreaks` decides on joins by the line break), before and after
 * units, since a unit may put a word next to a hyphen (`30"-30"`). Between two digits a hyphen
 * stays: `101-205` is a range, and `2-300` must not become the number `2 300`.
 */
// The hyphen comes first and the character before it is checked by a lookbehind that includes it,
// so the pattern is tried only at hyphens, not at every position.
const INNER_HYPHEN = /-(?<=[\p{L}\p{M}]-)(?=[\p{L}\p{M}\p{N}])|-(?<=\p{N}-)(?=[\p{L}\p{M}])/gu;

const hyphensToSpaces = onlyIf(/-/, (source) => replaceMapped(source, INNER_HYPHEN, () => ' '));

export function normalize(raw: string): NormalizedText {
  let current = identityMapped(raw);
  current = repairMojibake(current);
  current = vulgarFractions(current);
  // Before NFKC, which makes every space a plain one, and before white space is collapsed.
  current = digitGaps(current);
  current = foldPunctuation(current);
  current = nfkc(current);
  current = foldPunctuation(current);
  current = joinBreaks(current);
  current = lowerCase(current);
  current = collapseWhitespace(current);
  current = hyphensToSpaces(current);
  current = canonicalizeUnits(current);
  // Again: units may put a word right before a hyphen (`30"-30"` is `30 inch-30 inch`).
  current = hyphensToSpaces(current);
  // Last, once spaces are final (`1x1,850` is `1 x 1850`), so a second pass changes nothing.
  current = wholeNumbers(current);
  return { text: current.text, offsets: current.origins };
}

export function normalizeText(raw: string): string {
  return normalize(raw).text;
}

/**
 * The punctuation-free form PostgreSQL indexes (`to_tsvector('simple', …)`) and the pre-filter
 * queries with `phraseto_tsquery`: every run of non-word characters (see WORD_CHAR) becomes one
 * space, so its words are exactly the words the post-filter's boundaries delimit. That is what
 * makes every post-filter hit a pre-filter hit.
 */
export function tokenForm(normalized: string): string {
  return normalized.replace(/[^\p{L}\p{M}\p{N}]+/gu, ' ').trim();
}
