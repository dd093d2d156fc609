import { createHash } from 'node:crypto';
import { WORD_CHAR } from './normalize.js';

/**
 * The exact pre-filter. A chunk's `tsvector` and a term's `tsquery` are both built here, from the
 * normalized text, so that `vector @@ query` holds exactly when the strict post-filter
 * (`findFirstMatch`: the term at word boundaries) would accept the chunk. Counts, per-project
 * tallies and ranking can then run in SQL without reading any chunk's text into the process.
 *
 * Normalized text is a chain of tokens: maximal runs of word characters (WORD_CHAR) and maximal
 * runs of anything else (separators). A term occurs at word boundaries exactly when its own chain
 * of tokens occurs as consecutive tokens of the text, with one twist at its ends (below). So:
 *
 * - each word is a lexeme at its own position (a number with a decimal point or a fraction slash,
 *   `2.5` or `1/2`, is one word);
 * - each separator other than the single space is a lexeme at its own position, so `quartz;
 *   countertops` has a gap that the phrase `quartz <-> countertops` cannot jump, and `walk-in`
 *   matches only `walk <-> - <-> in`;
 * - a term that starts (or ends) with punctuation, such as `(quartz)`, needs its leading part to be
 *   a suffix of the text's separator that is preceded by a non-word character: a proper suffix,
 *   or the whole separator at the very start of the text. Those suffixes are indexed at the
 *   separator's position with a `s` mark, and the matching prefixes with a `p` mark. A mark plus
 *   punctuation mixes a word character with non-word ones, so it can never equal a word or a
 *   separator lexeme.
 *
 * PostgreSQL keeps at most 256 positions per lexeme in one tsvector (as `to_tsvector` does), so
 * a lexeme repeated more often than that in one chunk (only degenerate text: ~4 characters per
 * repetition) is findable by its first 256 occurrences only.
 */

const WORD_CLASS = WORD_CHAR.source.slice(1, -1);
/**
 * A word, where a point or slash between two digits is part of it (`2.5`, `1/2` are one number,
 * as the post-filter's boundaries say: see `NUMBER_JOINERS`), or a run of anything else.
 */
const TOKENS = new RegExp(
  `[${WORD_CLASS}]+(?:(?<=\\p{N})[./](?=\\p{N})[${WORD_CLASS}]+)*|[^${WORD_CLASS}]+`,
  'gu',
);
const WORD = new RegExp(`^[${WORD_CLASS}]`, 'u');
const SPACE = ' ';

/** PostgreSQL refuses lexemes of 2 KB or more; longer ones are replaced by a digest mark. */
const MAX_LEXEME_BYTES = 2000;

function lexeme(token: string): string {
  if (Buffer.byteLength(token, 'utf8') < MAX_LEXEME_BYTES) return token;
  return `#${createHash('sha256').update(token, 'utf8').digest('hex')}`;
}

/** Quoted for tsvector and tsquery input: backslashes and quotes escaped. */
function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

interface Token {
  text: string;
  word: boolean;
}

function tokens(text: string): Token[] {
  return Array.from(text.matchAll(TOKENS), (m) => ({ text: m[0], word: WORD.test(m[0]) }));
}

/** Proper suffixes of a separator that start with a non-space (a term never starts with a space). */
function leadingForms(separator: string, atStart: boolean): string[] {
  const forms: string[] = [];
  for (let i = atStart ? 0 : 1; i < separator.length; i++) {
    if (separator[i] !== SPACE && !isLowSurrogate(separator, i)) forms.push(`s${separator.slice(i)}`);
  }
  return forms;
}

/** Proper prefixes of a separator that end with a non-space (a term never ends with a space). */
function trailingForms(separator: string, atEnd: boolean): string[] {
  const forms: string[] = [];
  for (let i = atEnd ? separator.length : separator.length - 1; i > 0; i--) {
    if (separator[i - 1] !== SPACE && !isLowSurrogate(separator, i)) forms.push(`p${separator.slice(0, i)}`);
  }
  return forms;
}

function isLowSurrogate(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff;
}

/** The tsvector input for a chunk's normalized text (see above). Empty text gives ''. */
export function searchVectorLiteral(normalized: string): string {
  const positions = new Map<string, number[]>();
  const add = (lex: string, position: number) => {
    const list = positions.get(lex);
    if (list) list.push(position);
    else positions.set(lex, [position]);
  };
  const all = tokens(normalized);
  let position = 0;
  all.forEach((token, index) => {
    if (token.word) {
      add(lexeme(token.text), ++position);
      return;
    }
    if (token.text === SPACE) return;
    const at = ++position;
    add(lexeme(token.text), at);
    for (const form of leadingForms(token.text, index === 0)) add(lexeme(form), at);
    for (const form of trailingForms(token.text, index === all.length - 1)) add(lexeme(form), at);
  });
  return [...positions].map(([lex, at]) => `${quote(lex)}:${at.join(',')}`).join(' ');
}

/**
 * The tsquery input matching exactly the chunks where the post-filter finds `term`, or null when
 * the term has no word (the post-filter never matches such a term either).
 */
export function termQueryLiteral(term: string): string | null {
  const all = tokens(term);
  if (!all.some((t) => t.word)) return null;
  const parts: string[] = [];
  all.forEach((token, index) => {
    if (token.word) parts.push(quote(lexeme(token.text)));
    else if (index === 0) parts.push(quote(lexeme(`s${token.text}`)));
    else if (index === all.length - 1) parts.push(quote(lexeme(`p${token.text}`)));
    else if (token.text !== SPACE) parts.push(quote(lexeme(token.text)));
  });
  return parts.join(' <-> ');
}

/** The OR of every term's query, or null when no term is searchable (matches no row). */
export function searchQueryLiteral(terms: readonly string[]): string | null {
  const queries = [...new Set(terms.map(termQueryLiteral).filter((q): q is string => q !== null))];
  if (queries.length === 0) return null;
  return queries.map((q) => `(${q})`).join(' | ');
}

/** The lexemes of a tsquery literal (src/search/text/lexemes.ts quotes each one: quotes doubled, backslashes escaped). */
export function lexemesOf(tsquery: string): string[] {
  return [...tsquery.matchAll(/'((?:[^']|'')*)'/g)].map((m) =>
    m[1].replaceAll("''", "'").replaceAll('\\\\', '\\'),
  );
}
