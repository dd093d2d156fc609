/**
 * What the search service returns: plain data, field for field the GraphQL types of
 * src/search/search.types.ts (which implement these, so the two cannot drift).
 */

export interface StableCitationView {
  documentId: number;
  pageNumber: number;
  textHash: string;
}

export interface SearchCoverageView {
  totalActiveDocuments: number;
  documentsWithText: number;
  documentsWithNoText: number;
  preFilterCandidates: number;
}

export interface ChunkHitView {
  chunkId: number;
  projectId: number;
  projectName: string;
  documentId: number;
  documentName: string;
  category: string;
  pageNumber: number;
  excerpt: string;
  matchedTerm: string;
  extractionId: number;
  stableCitation: StableCitationView;
  /** OCR's confidence (0-100) in the chunk's words; null for text from the PDF's text layer. */
  ocrConfidence: number | null;
}

export interface SearchDocumentTextView {
  data: ChunkHitView[];
  meta: {
    query: string;
    expandedTerms: readonly string[];
    totalChunksMatched: number;
    coverage: SearchCoverageView;
  };
}

export interface ProjectMatchView {
  projectId: number;
  projectName: string;
  matchCount: number;
  categoriesMatched: string[];
  bestExcerpt: string;
}

export interface FindProjectsMentioningView {
  data: ProjectMatchView[];
  meta: {
    query: string;
    expandedTerms: readonly string[];
    totalProjects: number;
    coverage: SearchCoverageView;
  };
}
