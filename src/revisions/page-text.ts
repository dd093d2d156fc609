import { followingChunkStart, pageTextHash } from '../search/text/chunk.js';

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

const join = (text: string, chunk: string, k: number) => text + (k === 0 ? '\n' : '') + chunk.slice(k);

/** The page joined at the longest overlaps (right unless the text repeats itself). */
function joinedAtLongest(chunks: readonly string[]): string {
  let text = chunks[0];
  for (const chunk of chunks.slice(1)) text = join(text, chunk, overlapOf(text, chunk));
  return text;
}

/**
 * The page joined where the chunker started each chunk (followingChunkStart), which stays right
 * where the text repeats itself (identical lines, a repeated table row) and the end of a chunk also
 * matches a longer start of the next one; null when a chunk does not start where the rule says.
 */
function joinedByRule(chunks: readonly string[]): string | null {
  let text = chunks[0];
  let start = 0;
  for (const chunk of chunks.slice(1)) {
    const next = followingChunkStart(text, start);
    const k = text.length - next;
    if (k <= 0 || k > chunk.length || !text.endsWith(chunk.slice(0, k))) return null;
    text += chunk.slice(k);
    start = next;
  }
  return text;
}

/** One page from its chunks, checked against the stored page hash. */
function rebuildPage(chunks: readonly string[], textHash: string): { text: string; exact: boolean } {
  const byRule = joinedByRule(chunks);
  if (byRule !== null && pageTextHash(byRule) === textHash) return { text: byRule, exact: true };
  const longest = joinedAtLongest(chunks);
  return { text: longest, exact: pageTextHash(longest) === textHash };
}

/**
 * Pages rebuilt from their chunks: chunks never cross a page and each repeats the end of the one
 * before, so joining each chunk at its overlap with the text so far gives the page back. The stored
 * page hash (SHA-256 of the normalized page text) tells whether the rebuilt page is exact.
 */
export function rebuildPages(chunks: readonly StoredChunk[]): RebuiltPage[] {
  const pages = new Map<number, { chunks: string[]; textHash: string }>();
  for (const chunk of chunks) {
    const page = pages.get(chunk.pageNumber);
    if (page) page.chunks.push(chunk.rawText);
    else pages.set(chunk.pageNumber, { chunks: [chunk.rawText], textHash: chunk.textHash });
  }
  return [...pages]
    .sort(([a], [b]) => a - b)
    .map(([pageNumber, p]) => ({ pageNumber, textHash: p.textHash, ...rebuildPage(p.chunks, p.textHash) }));
}
