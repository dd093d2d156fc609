import { normalize } from './normalize.js';

/**
 * Where each unit of a chunk's normalized text came from in its raw text (`normalize(raw).offsets`),
 * kept for the chunks shown most recently. Every hit on a page of results cuts its excerpt from the
 * chunk's raw text, which needs these offsets, and normalizing each shown chunk again was about a
 * third of the CPU of a project-scoped search (a profile of the MCP search under load). The key is
 * the raw text itself, so a kept entry is right for as long as it is kept: `normalize` depends on
 * its input alone (its version is the code's own), and nothing needs to be told when a chunk
 * changes or goes.
 *
 * Bounded by the raw characters kept (their offsets take four bytes a character beside the text's
 * own one or two): about 12 MB at most. The least recently used entries go first.
 */
const MAX_KEPT_CHARS = 2_000_000;
/** Longer texts (not a chunk: chunks are about 1,000 characters) are normalized every time. */
const MAX_ENTRY_CHARS = 20_000;

const kept = new Map<string, Int32Array>();
let keptChars = 0;
let normalized = 0;

export function rawOffsets(raw: string): ArrayLike<number> {
  const found = kept.get(raw);
  if (found) {
    // Most recently used goes last, so the oldest entry is always the first the map iterates.
    kept.delete(raw);
    kept.set(raw, found);
    return found;
  }
  normalized++;
  const offsets = Int32Array.from(normalize(raw).offsets);
  if (raw.length <= MAX_ENTRY_CHARS) {
    kept.set(raw, offsets);
    keptChars += raw.length;
    for (const oldest of kept.keys()) {
      if (keptChars <= MAX_KEPT_CHARS) break;
      kept.delete(oldest);
      keptChars -= oldest.length;
    }
  }
  return offsets;
}

/** How many texts' offsets are kept, their raw characters, and the texts normalized so far (tests). */
export function rawOffsetsKept(): { entries: number; chars: number; normalized: number } {
  return { entries: kept.size, chars: keptChars, normalized };
}
