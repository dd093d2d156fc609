import 'reflect-metadata';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/orm.js';

/** `npm run migration:create [-- --initial] [-- --name x]`: diffs the entities against the snapshot and writes a migration. */
const args = process.argv.slice(2);
const initial = args.includes('--initial');
const nameIndex = args.indexOf('--name');
const name = nameIndex >= 0 ? args[nameIndex + 1] : undefined;

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
