/** Line breaking for the corpus layout: greedy filling, optional line-end hyphenation. */

import { normalizeText } from '../../search/text/normalize.js';

export type Measure = (text: string) => number;

/**
 * Whether the normalizer keeps a line-end hyphen after this word as a word break (`walk-` + `in`
 * is "walk in"), instead of joining the two lines into one word. Breaking a plain word there would print a different word, so the typesetter does
 * not; asking the normalizer keeps the two in step.
 */
function keepsHyphen(head: string): boolean {
  return !normalizeText(`${head}-\nxyz`).includes(`${head.toLowerCase()}xyz`);
}

/** The widest `head-` of `word` that still fits after `line`, cut between two lower-case letters. */
function hyphenate(line: string, word: string, width: number, measure: Measure): [string, string] | null {
  for (let cut = word.length - 3; cut >= 4; cut--) {
    if (!/[a-z]/.test(word[cut - 1]) || !/[a-z]/.test(word[cut])) continue;
    const headRun = /[a-z]*$/.exec(word.slice(0, cut))![0];
    const tailRun = /^[a-z]*/.exec(word.slice(cut))![0];
    if (headRun.length < 4 || tailRun.length < 3 || keepsHyphen(headRun)) continue;
    const head = `${line ? `${line} ` : ''}${word.slice(0, cut)}-`;
    if (measure(head) <= width) return [head, word.slice(cut)];
  }
  return null;
}

/** Greedy line filling at plain spaces (a no-break space keeps its words together, as in print). */
export function wrap(text: string, width: number, measure: Measure, hyphenation: boolean): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const candidate = line ? `${line} ${word}` : word;
    if (measure(candidate) <= width) {
      line = candidate;
      continue;
    }
    const split = hyphenation ? hyphenate(line, word, width, measure) : null;
    if (split) {
      lines.push(split[0]);
      line = split[1];
    } else {
      if (line) lines.push(line);
      line = word;
    }
  }
  if (line) lines.push(line);
  return lines;
}
