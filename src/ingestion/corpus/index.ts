/** The demo PDF corpus generator: its entry point and the manifest it writes. */
export { generateCorpus, type GenerateCorpusOptions } from './generate.js';
export { ABSENT_CONCEPTS, CONCEPTS, NEAR_MISS_TEXTS, type Concept, type ConceptFamily } from './concepts.js';
export type {
  ArtifactProfile,
  CorpusDocument,
  CorpusFact,
  CorpusManifest,
  ExpectedExtraction,
} from './manifest.js';
