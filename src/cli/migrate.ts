import 'reflect-metadata';
import { loadConfig } from '../config.js';
import { migrateUp, openDatabase } from '../db/orm.js';
import { ensureSearchIndex } from '../db/search-index.js';

/** `npm run migration:up`: applies pending migrations to DATABASE_URL (or the embedded database). */
const config = loadConfig();
const db = await openDatabase(config);
try {
  const applied = await migrateUp(db.orm);
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
  console.log(`search index: ${await ensureSearchIndex(db.orm.em, config.searchIndex, !!db.pglite)}`);
} finally {
  await db.close();
}
