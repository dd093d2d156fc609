import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

/** Removes the run's directory and the PostgreSQL template built in it, if any. */
export default async function globalTeardown(): Promise<void> {
  const dir = process.env.PDS_TEST_RUN_DIR;
  if (!dir) return;
  const named = join(dir, 'postgres-template');
  if (process.env.DATABASE_URL && existsSync(named)) {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    try {
      await client.query(`drop database if exists ${readFileSync(named, 'utf8')} with (force)`);
    } finally {
      await client.end();
    }
  }
  rmSync(dir, { recursive: true, force: true });
}
