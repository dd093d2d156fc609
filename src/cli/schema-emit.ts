import 'reflect-metadata';
import { writeFileSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { renderContracts } from '../contracts.js';

/** `npm run schema:emit`: writes the generated contracts under schema/ (committed; a test fails on drift). */
const dir = resolve(import.meta.dirname, '../../../schema');
mkdirSync(dir, { recursive: true });
for (const [file, text] of Object.entries(await renderContracts())) {
  writeFileSync(resolve(dir, file), text);
  console.log(`wrote schema/${file}`);
}
