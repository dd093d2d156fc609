import { diffArrays } from 'diff';

/**
 * What differs between two texts of one page, line by line. A removed line and an added line that
 * are the same but for their numbers are one change, with each number that differs paired as
 * before → after (a price, a percentage, an area, a date); any other difference is a line removed
 * or added. Lines are compared with runs of white space folded, so a re-extraction that spaces a
 * line differently is no change.
 */

export interface NumberChange {
  before: string;
  after: string;
}

export type LineChange =
  | { kind: 'removed'; before: string }
  | { kind: 'added'; after: string }
  | { kind: 'changed'; before: string; after: string; numbers: NumberChange[] };

const MONTH = '(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\\.?';

/**
 * The values a line's numbers are read as: ISO dates, "Month YYYY" and "Month D, YYYY" dates, then
 * amounts with their currency sign, digit groups, decimals, a fraction and a percent sign. Digits
 * glued to letters ("1B", "PH2", "2BR") are a label, not a value: they stay part of the line, so a
 * row of suite 1B never pairs with a row of suite 1C.
 */
const VALUE = new RegExp(
  [
    '\\d{4}-\\d{2}-\\d{2}',
    `\\b${MONTH}\\s+(?:\\d{1,2},?\\s+)?\\d{4}\\b`,
    '(?<![\\p{L}\\d])[$€£]?\\d+(?:[,\\u00a0\\u202f]\\d{3})*(?:\\.\\d+)?(?:/\\d+)?%?(?![\\p{L}\\d])',
  ].join('|'),
  'giu',
);

/** White space folded, ends trimmed. */
export function lineKey(line: string): string {
  return line.replace(/\s+/gu, ' ').trim();
}

/** The page's non-empty lines, white space folded. */
export function linesOf(text: string): string[] {
  return text
    .split('\n')
    .map(lineKey)
    .filter((line) => line.length > 0);
}

function valuesOf(line: string): { shape: string; values: string[] } {
  const values: string[] = [];
  const shape = lineKey(line).replace(VALUE, (value) => {
    values.push(value);
    return '\u0000';
  });
  return { shape: shape.toLowerCase(), values };
}

/**
 * The numbers that differ, when the two lines are the same but for their numbers and not all of
 * them changed (a line of two or more values with every value new is another row, not this one
 * revised); else null.
 */
export function numberChanges(before: string, after: string): NumberChange[] | null {
  const a = valuesOf(before);
  const b = valuesOf(after);
  if (a.values.length === 0 || a.shape !== b.shape || a.values.length !== b.values.length) return null;
  const changes: NumberChange[] = [];
  a.values.forEach((value, i) => {
    if (value !== b.values[i]) changes.push({ before: value, after: b.values[i] });
  });
  if (changes.length === 0) return null;
  if (a.values.length > 1 && changes.length === a.values.length) return null;
  return changes;
}

/**
 * A run of removed lines next to a run of added ones is searched for pairs that differ only in some
 * of their numbers. The closest pairs (fewest numbers changed) are taken first, keeping the order of
 * both runs, so "Suite 4A … $749,900" pairs with "Suite 4A … $759,900" even when the row of suite
 * 3A before it was removed and looks alike.
 */
function pairRuns(removed: string[], added: string[]): LineChange[] {
  const candidates: { i: number; k: number; numbers: NumberChange[] }[] = [];
  removed.forEach((before, i) =>
    added.forEach((after, k) => {
      const numbers = numberChanges(before, after);
      if (numbers) candidates.push({ i, k, numbers });
    }),
  );
  candidates.sort((x, y) => x.numbers.length - y.numbers.length || x.i - y.i || x.k - y.k);
  const pairOf = new Map<number, { k: number; numbers: NumberChange[] }>();
  const taken: { i: number; k: number }[] = [];
  for (const c of candidates) {
    if (pairOf.has(c.i) || taken.some((t) => t.k === c.k || t.i < c.i !== t.k < c.k)) continue;
    pairOf.set(c.i, c);
    taken.push(c);
  }
  const out: LineChange[] = [];
  let j = 0;
  removed.forEach((before, i) => {
    const pair = pairOf.get(i);
    if (!pair) {
      out.push({ kind: 'removed', before });
      return;
    }
    for (; j < pair.k; j++) out.push({ kind: 'added', after: added[j] });
    out.push({ kind: 'changed', before, after: added[pair.k], numbers: pair.numbers });
    j = pair.k + 1;
  });
  for (; j < added.length; j++) out.push({ kind: 'added', after: added[j] });
  return out;
}

/** The changes from one page text to another, in page order. */
export function diffLines(beforeText: string, afterText: string): LineChange[] {
  const parts = diffArrays(linesOf(beforeText), linesOf(afterText));
  const out: LineChange[] = [];
  let removed: string[] = [];
  let added: string[] = [];
  const flush = () => {
    out.push(...pairRuns(removed, added));
    removed = [];
    added = [];
  };
  for (const part of parts) {
    if (part.removed) removed.push(...part.value);
    else if (part.added) added.push(...part.value);
    else flush();
  }
  flush();
  return out;
}
