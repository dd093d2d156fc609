/** The demo PDF corpus generator: its entry point and the manifest it writes. */
export { generateCorpus } from './generate.js';
export { CONCEPTS, NEAR_MISS_TEXTS, conceptQueries, type ConceptFamily } from './concepts.js';
export type { CorpusDocument, CorpusManifest } from './manifest.js';
