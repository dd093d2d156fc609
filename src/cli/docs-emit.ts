import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { docsParts } from '../docs/docs-parts.js';
import { applyPart } from '../docs/generated-parts.js';

/**
 * `npm run docs:emit`: writes the generated parts of docs/ and `.env.example` from src/config.ts
 * and the contracts under schema/ (committed; a test fails on drift).
 */
const root = resolve(import.meta.dirname, '../../..');
for (const part of docsParts(root)) {
  const path = resolve(root, part.file);
  const current = existsSync(path) ? readFileSync(path, 'utf8') : null;
  const next = applyPart(current, part);
  if (next !== current) {
    writeFileSync(path, next);
    console.log(`wrote ${part.file}${part.region ? ` (${part.region})` : ''}`);
  }
}
