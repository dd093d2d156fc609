import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { CATEGORIES, EXTRACTION_STATUSES } from '../enums.js';
import { ProjectSchema } from '../catalogue/project.entity.js';

/**
 * A PDF of a project. Revisions form a lineage through `supersedes`; only the newest is `isLatest`.
 * `currentExtraction` is the extraction that search reads; a re-index builds a new one beside it
 * and switches this pointer in one transaction.
 */
export const DocumentSchema = defineEntity({
  name: 'Document',
  uniques: [{ properties: ['project', 'contentHash'] }],
  properties: {
    id: p.integer().primary(),
    project: () => p.manyToOne(ProjectSchema).deleteRule('cascade').index(),
    name: p.string().length(300),
    category: p.enum(CATEGORIES),
    type: p.string().length(100).nullable(),
    supersedes: () => p.manyToOne(DocumentSchema).nullable().deleteRule('set null'),
    isLatest: p.boolean().default(true),
    contentHash: p.string().length(64),
    byteSize: p.integer(),
    content: p.blob().lazy().hidden(),
    currentExtraction: () => p.manyToOne(ExtractionSchema).nullable().deleteRule('set null'),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
/** @public the entity type, beside each schema */
export type Document = InferEntity<typeof DocumentSchema>;

export const ExtractionSchema = defineEntity({
  name: 'Extraction',
  properties: {
    id: p.integer().primary(),
    document: () => p.manyToOne(DocumentSchema).deleteRule('cascade').index(),
    status: p.enum(EXTRACTION_STATUSES).default('pending'),
    method: p.string().length(60).nullable(),
    extractorVersion: p.string().length(60).nullable(),
    normalizerVersion: p.integer().nullable(),
    pageCount: p.integer().default(0),
    rawTextLength: p.integer().default(0),
    attempts: p.integer().default(0),
    error: p.text().nullable(),
    indexedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
/** @public the entity type, beside each schema */
export type Extraction = InferEntity<typeof ExtractionSchema>;

/**
 * A searchable piece of one page of one extraction. `searchText` is the normalized text the
 * post-filter reads; `searchVector` is built from it by `searchVectorLiteral` (src/search/text/lexemes.ts)
 * so that the indexed pre-filter agrees exactly with the post-filter.
 */
export const ChunkSchema = defineEntity({
  name: 'Chunk',
  indexes: [
    { properties: ['extraction', 'chunkIndex'] },
    {
      name: 'chunk_search_vector_gin',
      expression: 'create index "chunk_search_vector_gin" on "chunk" using gin ("search_vector")',
    },
  ],
  properties: {
    id: p.integer().primary(),
    extraction: () => p.manyToOne(ExtractionSchema).deleteRule('cascade'),
    document: () => p.manyToOne(DocumentSchema).deleteRule('cascade').index(),
    project: () => p.manyToOne(ProjectSchema).deleteRule('cascade').index(),
    chunkIndex: p.integer(),
    pageNumber: p.integer(),
    rawText: p.text(),
    searchText: p.text(),
    textHash: p.string().length(64),
    /** OCR's confidence (0-100) in the chunk's words; null for text from the PDF's text layer. */
    ocrConfidence: p.float().columnType('real').nullable(),
    searchVector: p.type('string').columnType('tsvector').lazy(),
  },
});
/** @public the entity type, beside each schema */
export type Chunk = InferEntity<typeof ChunkSchema>;
