import { createHash } from 'node:crypto';
import { searchVectorLiteral } from './lexemes.js';
import { normalize } from './normalize.js';

/** A recognized word's place in its page's text and the recognizer's confidence in it (0-100). */
export interface WordSpan {
  start: number;
  end: number;
  confidence: number;
}

export interface PageText {
  pageNumber: number;
  text: string;
  /** Set for a page whose text came from OCR: its words, for each chunk's confidence. */
  words?: WordSpan[];
}

export interface ChunkDraft {
  /** Position in the document, counted across pages. */
  chunkIndex: number;
  pageNumber: number;
  /** The document's own text, for excerpts and context. */
  rawText: string;
  /** `normalize(rawText).text`, read by the post-filter. */
  searchText: string;
  /** `searchVectorLiteral(searchText)`: the indexed tsvector, as PostgreSQL input. */
  searchVector: string;
  /** SHA-256 (hex) of the page's normalized text: a citation that survives re-chunking. */
  pageTextHash: string;
  /** OCR's confidence (0-100) in the chunk's words, weighted by their length; null for a text layer. */
  ocrConfidence: number | null;
}

export interface ChunkOptions {
  /** Longest chunk, in raw characters. */
  maxChars?: number;
  /** Raw characters repeated from the end of one chunk at the start of the next. */
  overlap?: number;
}

const DEFAULT_MAX_CHARS = 1000;
const DEFAULT_OVERLAP = 150;

export function pageTextHash(pageText: string): string {
  return createHash('sha256').update(normalize(pageText).text, 'utf8').digest('hex');
}

/**
 * Splits pages into overlapping chunks that never cross a page, so every hit cites one page.
 * A phrase no longer than the overlap that a chunk end cuts through is whole in the next chunk.
 * Pages are taken in page-number order; pages without searchable text yield no chunk.
 */
export function chunkPages(pages: PageText[], opts: ChunkOptions = {}): ChunkDraft[] {
  const maxChars = Math.max(20, Math.floor(opts.maxChars ?? DEFAULT_MAX_CHARS));
  // The overlap must stay well under the chunk size for the guarantee above to hold (see spans()).
  const overlap = Math.min(
    Math.max(0, Math.floor(opts.overlap ?? DEFAULT_OVERLAP)),
    Math.floor(maxChars * 0.3),
  );
  const drafts: ChunkDraft[] = [];
  const ordered = [...pages].sort((a, b) => a.pageNumber - b.pageNumber);
  for (const page of ordered) {
    const hash = pageTextHash(page.text);
    for (const [start, end] of spans(page.text, maxChars, overlap)) {
      const rawText = page.text.slice(start, end);
      const searchText = normalize(rawText).text;
      if (searchText.length === 0) continue;
      drafts.push({
        chunkIndex: drafts.length,
        pageNumber: page.pageNumber,
        rawText,
        searchText,
        searchVector: searchVectorLiteral(searchText),
        pageTextHash: hash,
        ocrConfidence: page.words ? confidenceOf(page.words, start, end) : null,
      });
    }
  }
  return drafts;
}

/** The length-weighted mean confidence of the words inside [start, end), to one decimal; 0 with none. */
function confidenceOf(words: WordSpan[], start: number, end: number): number {
  let sum = 0;
  let weight = 0;
  for (const w of words) {
    if (w.end <= start || w.start >= end) continue;
    const length = Math.min(w.end, end) - Math.max(w.start, start);
    sum += w.confidence * length;
    weight += length;
  }
  return weight === 0 ? 0 : Math.round((sum / weight) * 10) / 10;
}

const SPACE = /\s/u;

function isSpace(text: string, index: number): boolean {
  return SPACE.test(text[index] ?? '');
}

/**
 * Raw [start, end) spans of one page. A chunk ends at the last line break, else the last space,
 * after `minChars`; the next one starts at a line start within 1.5 × overlap before that end, else
 * at a word start, else mid-word. Since the next chunk then starts at most 1.5 × overlap back and
 * runs at least `minChars` ≥ 2.5 × overlap, it reaches at least one overlap past the previous end.
 */
function spans(text: string, maxChars: number, overlap: number): Array<[number, number]> {
  const minChars = Math.max(Math.ceil(maxChars / 2), Math.ceil(overlap * 2.5));
  const result: Array<[number, number]> = [];
  let start = skipSpaces(text, 0);
  while (start < text.length) {
    let end: number;
    if (text.length - start <= maxChars) {
      end = text.length;
    } else {
      const limit = start + maxChars;
      end =
        lastIndexIn(text, '\n', start + minChars, limit) ??
        lastSpaceIn(text, start + minChars, limit) ??
        notInsidePair(text, limit);
    }
    const trimmedEnd = trimEnd(text, start, end);
    if (trimmedEnd > start) result.push([start, trimmedEnd]);
    if (end >= text.length) break;
    const next = nextStart(text, start, end, overlap);
    start = skipSpaces(text, next > start ? next : end);
  }
  return result;
}

/**
 * Where the chunker started the chunk after one that starts at `start` and ends the text given (a
 * page's text up to that chunk's end): the same rule as chunkPages with its default overlap, so a
 * page can be put back together from its chunks without guessing where they overlap.
 */
export function followingChunkStart(text: string, start: number): number {
  const next = nextStart(text, start, text.length, DEFAULT_OVERLAP);
  return skipSpaces(text, next > start ? next : text.length);
}

function nextStart(text: string, start: number, end: number, overlap: number): number {
  if (overlap === 0) return end;
  const target = end - overlap;
  const lineStart = lastIndexIn(text, '\n', Math.max(start + 1, end - Math.floor(overlap * 1.5)) - 1, target);
  if (lineStart !== undefined) return lineStart + 1;
  for (let i = target; i > Math.max(start, target - overlap / 2); i--) {
    if (isSpace(text, i - 1) && !isSpace(text, i)) return i;
  }
  return notInsidePair(text, Math.max(start + 1, target));
}

/** Last index of `char` in [from, to), or undefined. */
function lastIndexIn(text: string, char: string, from: number, to: number): number | undefined {
  const index = text.lastIndexOf(char, to - 1);
  return index >= from && index < to ? index : undefined;
}

/** Last whitespace position in [from, to), or undefined. */
function lastSpaceIn(text: string, from: number, to: number): number | undefined {
  for (let i = to - 1; i >= from; i--) if (isSpace(text, i)) return i;
  return undefined;
}

function skipSpaces(text: string, index: number): number {
  let i = index;
  while (i < text.length && isSpace(text, i)) i++;
  return i;
}

function trimEnd(text: string, start: number, end: number): number {
  let i = end;
  while (i > start && isSpace(text, i - 1)) i--;
  return i;
}

/** Never cut between the two halves of a surrogate pair. */
function notInsidePair(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff ? index - 1 : index;
}
