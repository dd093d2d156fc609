import { pageTextHash } from '../search/text/chunk.js';

/** One chunk of a page as stored: its raw text in chunk order, and the page's text hash. */
export interface StoredChunk {
  pageNumber: number;
  rawText: string;
  textHash: string;
}

export interface RebuiltPage {
  pageNumber: number;
  text: string;
  textHash: string;
  /** Whether the rebuilt text hashes to the stored page hash (it does unless a page lost text to chunking). */
  exact: boolean;
}

/**
 * The longest overlap tried between two chunks of a page: chunking repeats at most 1.5 × its
 * overlap at a line start (src/search/text/chunk.ts `nextStart`), and the overlap is capped at 30 % of a
 * chunk, so 0.45 of the longest chunk bounds it; twice that leaves room for other chunk settings.
 */
const MAX_OVERLAP = 1000;

/** The longest k such that `a` ends with the first k characters of `b`. */
function overlapOf(a: string, b: string): number {
  for (let k = Math.min(a.length, b.length, MAX_OVERLAP); k > 0; k--) {
    if (a.endsWith(b.slice(0, k))) return k;
  }
  return 0;
}

/**
 * Pages rebuilt from their chunks: chunks never cross a page and each repeats the end of the one
 * before, so joining each chunk at its overlap with the text so far gives the page back. The stored
 * page hash (SHA-256 of the normalized page text) tells whether the rebuilt page is exact.
 */
export function rebuildPages(chunks: readonly StoredChunk[]): RebuiltPage[] {
  const pages = new Map<number, { text: string; textHash: string }>();
  for (const chunk of chunks) {
    const page = pages.get(chunk.pageNumber);
    if (!page) {
      pages.set(chunk.pageNumber, { text: chunk.rawText, textHash: chunk.textHash });
      continue;
    }
    const k = overlapOf(page.text, chunk.rawText);
    page.text += (k === 0 ? '\n' : '') + chunk.rawText.slice(k);
  }
  return [...pages]
    .sort(([a], [b]) => a - b)
    .map(([pageNumber, p]) => ({
      pageNumber,
      text: p.text,
      textHash: p.textHash,
      exact: pageTextHash(p.text) === p.textHash,
    }));
}
