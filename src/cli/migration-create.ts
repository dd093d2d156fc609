import 'reflect-metadata';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/orm.js';
import { MIGRATION_NAME } from '../../migrations/index.js';

/**
 * `npm run migration:create -- --name <snake_case_name> [--initial]`: diffs the entities against the
 * snapshot and writes `migrations/Migration<timestamp>_<name>.ts` (add it to migrations/index.ts).
 */
const args = process.argv.slice(2);
const initial = args.includes('--initial');
const nameIndex = args.indexOf('--name');
const name = nameIndex >= 0 ? args[nameIndex + 1] : undefined;
if (!name || !MIGRATION_NAME.test(`Migration00000000000000_${name}`)) {
  console.error('migration:create needs --name <snake_case_name>, e.g. --name search_synonyms');
  process.exit(2);
}

const config = loadConfig();
const db = await openDatabase({
  databaseUrl: config.databaseUrl,
  dataDir: config.databaseUrl ? config.dataDir : 'memory://',
});
try {
  if (!initial) await db.orm.migrator.up();
  const result = await db.orm.migrator.create(undefined, false, initial, name);
  console.log(
    result.fileName ? `created ${result.fileName}` : 'no changes: entities match the last migration',
  );
} finally {
  await db.close();
}
