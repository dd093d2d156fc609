import { rawOffsets } from '../text/raw-offsets.js';
import type { ChunkHitView } from '../search.views.js';
import { buildExcerpt, findFirstMatch } from './match.js';
import type { HitDetails } from './statements.js';

export interface Hit {
  details: HitDetails;
  term: string;
  start: number;
  end: number;
}

/**
 * A shown hit's first match, found with the strict post-filter (for the excerpt and
 * `matched_term`). The pre-filter agrees with it by construction (a property test proves it); a
 * chunk where they disagreed would be left out rather than shown without a match.
 */
export function postFilter(details: HitDetails, terms: readonly string[]): Hit | null {
  const found = findFirstMatch(details.search_text, terms);
  return found ? { details, term: found.term, start: found.start, end: found.end } : null;
}

export function excerptOf(hit: Hit): string {
  return buildExcerpt(hit.details.raw_text, rawOffsets(hit.details.raw_text), hit.start, hit.end);
}

export function toChunkHit(hit: Hit): ChunkHitView {
  const d = hit.details;
  return {
    chunkId: d.chunk_id,
    projectId: d.project_id,
    projectName: d.project_name,
    documentId: d.document_id,
    documentName: d.document_name,
    category: d.category,
    pageNumber: d.page_number,
    excerpt: excerptOf(hit),
    matchedTerm: hit.term,
    extractionId: d.extraction_id,
    stableCitation: { documentId: d.document_id, pageNumber: d.page_number, textHash: d.text_hash },
    ocrConfidence: d.ocr_confidence,
  };
}
