import { configReference, envExample } from './config-reference.js';
import {
  errorReference,
  mcpPromptsReference,
  mcpResourcesReference,
  mcpToolsReference,
  openApiReference,
} from './contract-references.js';
import type { GeneratedPart } from './generated-parts.js';

/** Every generated part of docs/ and `.env.example`, from the repository at `root`. */
export function docsParts(root: string): GeneratedPart[] {
  return [
    configReference(),
    envExample(),
    openApiReference(root),
    mcpToolsReference(root),
    mcpResourcesReference(root),
    mcpPromptsReference(root),
    errorReference(),
  ];
}
