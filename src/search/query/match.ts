import { tokenForm, WORD_CHAR } from '../text/normalize.js';

/**
 * The strict post-filter: a term matches normalized text only as a whole phrase, where the
 * characters on both sides are not letters or digits. `inch` is not in `pinch`, and `30 inch` is
 * not in `130 inch`.
 */

export interface TermMatch {
  term: string;
  start: number;
  end: number;
}

function isWordCodePoint(cp: number | undefined): boolean {
  return cp !== undefined && WORD_CHAR.test(String.fromCodePoint(cp));
}

/** The code point that ends just before `index`, surrogate pairs included. */
function codePointBefore(text: string, index: number): number | undefined {
  if (index <= 0) return undefined;
  const low = text.charCodeAt(index - 1);
  if (low >= 0xdc00 && low <= 0xdfff && index >= 2) {
    const high = text.charCodeAt(index - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.codePointAt(index - 2);
  }
  return low;
}

/** A point or slash between two digits joins them into one number (`2.5`, `1/2`). */
const NUMBER_JOINERS = new Set(['.', '/']);
const isDigit = (ch: string | undefined) => ch !== undefined && /\p{N}/u.test(ch);

/** Whether a match starting at `index` would begin inside a number such as `2.5` (at its `5`). */
function insideNumberBefore(text: string, index: number): boolean {
  return NUMBER_JOINERS.has(text[index - 1]) && isDigit(text[index - 2]) && isDigit(text[index]);
}

/** Whether a match ending at `end` would stop inside a number such as `2.5` (after its `2`). */
function insideNumberAfter(text: string, end: number): boolean {
  return NUMBER_JOINERS.has(text[end]) && isDigit(text[end + 1]) && isDigit(text[end - 1]);
}

/**
 * Whether `term` occurs at `index` of `text` with word boundaries on both sides. Numbers are whole:
 * `5` is not in `2.5` and `2` is not in `2.5` or `2/3`.
 */
export function matchesAt(text: string, term: string, index: number): boolean {
  const end = index + term.length;
  return (
    text.startsWith(term, index) &&
    !isWordCodePoint(codePointBefore(text, index)) &&
    !isWordCodePoint(text.codePointAt(end)) &&
    !insideNumberBefore(text, index) &&
    !insideNumberAfter(text, end)
  );
}

/**
 * A term with no letters or digits has no token form, so the pre-filter could never find it; the
 * post-filter must not either, or it would report hits the index cannot back.
 */
function isSearchable(term: string): boolean {
  return tokenForm(term).length > 0;
}

function* occurrences(text: string, term: string): Generator<number> {
  for (let index = text.indexOf(term); index !== -1; index = text.indexOf(term, index + 1)) {
    if (matchesAt(text, term, index)) yield index;
  }
}

function firstOccurrence(text: string, term: string): number | undefined {
  for (const index of occurrences(text, term)) return index;
  return undefined;
}

/** The earliest match of any term; at the same position the longest term wins. */
export function findFirstMatch(normalizedText: string, terms: readonly string[]): TermMatch | null {
  let best: TermMatch | null = null;
  for (const term of terms) {
    if (!isSearchable(term)) continue;
    const start = firstOccurrence(normalizedText, term);
    if (start === undefined) continue;
    if (best === null || start < best.start || (start === best.start && term.length > best.term.length)) {
      best = { term, start, end: start + term.length };
    }
  }
  return best;
}

const EXCERPT_ELLIPSIS = '\u2026';

/**
 * About `width` characters of the document's own text around a match (normalized span
 * [start, end)), cut at whitespace, whitespace collapsed, with an ellipsis where text was cut.
 */
export function buildExcerpt(
  raw: string,
  offsets: ArrayLike<number>,
  start: number,
  end: number,
  width = 200,
): string {
  const matchStart = offsets[start] ?? 0;
  const matchEnd = Math.max(matchStart, offsets[end] ?? raw.length);
  const context = Math.max(0, width - (matchEnd - matchStart));
  let from = Math.max(0, matchStart - Math.ceil(context / 2));
  let to = Math.min(raw.length, matchEnd + Math.floor(context / 2));
  // Context the text cannot give on one side goes to the other.
  const spare = context - (matchStart - from) - (to - matchEnd);
  if (spare > 0) {
    from = Math.max(0, from - spare);
    to = Math.min(raw.length, to + spare);
  }
  from = cutForward(raw, from, matchStart);
  to = cutBackward(raw, to, matchEnd);
  const body = raw.slice(from, to).replace(/\s+/gu, ' ').trim();
  const cutBefore = /\S/u.test(raw.slice(0, from));
  const cutAfter = /\S/u.test(raw.slice(to));
  return `${cutBefore ? EXCERPT_ELLIPSIS : ''}${body}${cutAfter ? EXCERPT_ELLIPSIS : ''}`;
}

/** Moves a start cut to just after the next whitespace, unless that would eat into the match. */
function cutForward(raw: string, from: number, limit: number): number {
  if (from === 0 || /\s/u.test(raw[from - 1])) return from;
  for (let i = from; i < limit; i++) if (/\s/u.test(raw[i])) return i + 1;
  return avoidSplitPair(raw, from);
}

/** Moves an end cut back to the previous whitespace, unless that would eat into the match. */
function cutBackward(raw: string, to: number, limit: number): number {
  if (to === raw.length || /\s/u.test(raw[to])) return to;
  for (let i = to; i > limit; i--) if (/\s/u.test(raw[i - 1])) return i - 1;
  return avoidSplitPair(raw, to);
}

function avoidSplitPair(raw: string, index: number): number {
  const code = raw.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff ? index - 1 : index;
}
