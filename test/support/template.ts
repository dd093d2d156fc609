import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { migrateUp, openDatabase } from '../../src/db/orm.js';
import { createFreshDatabase, type FreshDatabase } from './database.js';

/**
 * One migrated template per test run, cloned for every test app, so that no test file pays for
 * the migrations again. `global-setup.ts` makes a directory for the run (PDS_TEST_RUN_DIR) and
 * `global-teardown.ts` removes it and the PostgreSQL templates named in it. Two workers may race
 * to build the first template: each builds its own, the first to claim the slot wins and the other
 * throws its copy away, so a half-built template is never cloned.
 */
function runDir(): string | null {
  const dir = process.env.PDS_TEST_RUN_DIR;
  if (!dir) return null;
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Claims `file` for `value` unless another worker did first; returns the value that holds. */
function claim(file: string, value: string): { value: string; won: boolean } {
  try {
    writeFileSync(file, value, { flag: 'wx' });
    return { value, won: true };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return { value: readFileSync(file, 'utf8'), won: false };
  }
}

async function migratedPgliteDump(dir: string): Promise<Buffer> {
  const file = join(dir, 'pglite-template.tar');
  if (existsSync(file)) return readFileSync(file);
  const engine = await PGlite.create('memory://');
  const db = await openDatabase({ databaseUrl: null, dataDir: 'memory://' }, { pglite: engine });
  await migrateUp(db.orm);
  await db.close();
  const dump = Buffer.from(await (await engine.dumpDataDir('none')).arrayBuffer());
  await engine.close();
  // Written under a private name and renamed: a reader sees the whole file or none.
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(tmp, dump);
  renameSync(tmp, file);
  return dump;
}

/** A fresh in-memory PGlite holding the migrated schema; without a run directory, an empty one. */
export async function clonedPglite(): Promise<PGlite> {
  const dir = runDir();
  if (!dir) return PGlite.create('memory://');
  const dump = await migratedPgliteDump(dir);
  return PGlite.create('memory://', { loadDataDir: new Blob([dump]) });
}

async function migratedTemplateName(baseUrl: string, dir: string): Promise<string> {
  const file = join(dir, 'postgres-template');
  if (existsSync(file)) return readFileSync(file, 'utf8');
  const built = await createFreshDatabase(baseUrl, `pds_tmpl_${randomBytes(6).toString('hex')}`);
  const db = await openDatabase({ databaseUrl: built.url, dataDir: 'memory://' }, { poolSize: 1 });
  await migrateUp(db.orm);
  await db.close();
  const held = claim(file, built.name);
  if (!held.won) await built.drop();
  return held.value;
}

/**
 * A new database on the server of `baseUrl`, cloned from the run's migrated template
 * (`CREATE DATABASE ... TEMPLATE`); without a run directory, an empty one the app migrates.
 */
export async function clonedPostgres(baseUrl: string, name: string): Promise<FreshDatabase> {
  const dir = runDir();
  if (!dir) return createFreshDatabase(baseUrl, name);
  const template = await migratedTemplateName(baseUrl, dir);
  // Two clones of one template at the same instant can meet "being accessed by other users".
  for (let attempt = 0; ; attempt++) {
    try {
      return await createFreshDatabase(baseUrl, name, template);
    } catch (err) {
      if ((err as { code?: string }).code !== '55006' || attempt >= 20) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100 + attempt * 50));
    }
  }
}
