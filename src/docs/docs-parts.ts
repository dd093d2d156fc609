import { configReference, envExample } from './config-reference.js';
import type { GeneratedPart } from './generated-parts.js';

/** Every generated part of docs/ and the repository root, in the order they are written. */
export function docsParts(): GeneratedPart[] {
  return [configReference(), envExample()];
}
