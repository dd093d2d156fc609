import type { Category } from '../../enums.js';

/**
 * Text artifacts a document is generated with, one per document. The first group changes the
 * characters written into the PDF, the second only the layout; the last three are documents
 * whose text cannot be read at all.
 */
export const TEXT_PROFILES = [
  'clean',
  'smart-quotes',
  'mojibake',
  'replacement-char',
  'ligatures',
  'nbsp',
  'soft-hyphens',
  'dashes',
] as const;
export const LAYOUT_PROFILES = ['line-end-hyphenation', 'letter-spaced-headings', 'two-column'] as const;
export const UNREADABLE_PROFILES = ['image-only', 'corrupt', 'encrypted'] as const;

export type TextProfile = (typeof TEXT_PROFILES)[number];
export type LayoutProfile = (typeof LAYOUT_PROFILES)[number];
export type ArtifactProfile = TextProfile | LayoutProfile | (typeof UNREADABLE_PROFILES)[number];

/**
 * What extraction must yield: text, text read by OCR (a scan: the facts are what the page image
 * shows), or a failure (corrupt, encrypted).
 */
export type ExpectedExtraction = 'text' | 'ocr' | 'failed';

export interface CorpusFact {
  /** The canonical query that must find this mention, e.g. "30 inch gas range", or a printed value, "$749,900". */
  concept: string;
  /** The mention exactly as written into the PDF, artifacts, line breaks and all. */
  surface: string;
  page: number;
}

export interface CorpusDocument {
  /** Path of the PDF relative to the corpus directory. */
  file: string;
  projectKey: string;
  category: Category;
  /** The document's file name as a developer would publish it. */
  name: string;
  type: string;
  profile: ArtifactProfile;
  expect: ExpectedExtraction;
  /** The older revision this document replaces; listed earlier in the manifest. */
  supersedesFile?: string;
  pageCount: number;
  sha256: string;
  /** Set for the encrypted document, so a test can prove the text is really there. */
  password?: string;
  /**
   * Every mention of a catalogue concept and every printed size and price (the `table` family); in
   * a scan, what its page images show. Empty for corrupt and encrypted documents.
   */
  facts: CorpusFact[];
  /** Queries that reading two neighbouring table columns as one number would answer: must find nothing. */
  traps?: string[];
}

export interface CorpusManifest {
  seed: number;
  /** Project keys covered, in dataset order. */
  projects: string[];
  /** Concepts (canonical queries) that no document mentions: searches for them must find nothing. */
  absentConcepts: string[];
  /** Older revisions come before the documents that supersede them. */
  documents: CorpusDocument[];
}
