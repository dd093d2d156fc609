import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { createRateLimiter, RATE_LIMIT_TABLE, RATE_LIMIT_TABLE_SQL } from '../../../src/auth/rate-limit.js';
import { describeStoreContract } from './store-contract.js';
import { describeWith } from '../../support/requirements.js';

/**
 * The postgres store runs on embedded PGlite always (through node-postgres, as MikroORM's pool
 * does), and on the real server too when DATABASE_URL is set (as in CI). Each run gets a schema of
 * its own, so runs and test files never share counters.
 */
describe('postgres store on PGlite', () => {
  let db: PGlite;
  let pool: pg.Pool;
  beforeAll(async () => {
    db = await PGlite.create('memory://');
    // One connection, as the embedded app runs MikroORM. The sibling is a second limiter on the same
    // pool: PGlite is a single session, so a second pool on the same engine collides on the library's
    // named prepared statements ("already exists"), and no second process can open it anyway.
    pool = new pg.Pool({ ...createPgConfig(db), max: 1 });
    await pool.query(RATE_LIMIT_TABLE_SQL);
  });
  afterAll(async () => {
    await pool.end();
    await db.close();
  });

  describeStoreContract('PGlite', () => ({
    config: { kind: 'postgres', pool },
    sibling: { kind: 'postgres', pool },
  }));
});

const databaseUrl = process.env.DATABASE_URL;
// Skipped only without DATABASE_URL: the PGlite suite above then covers the store's SQL.
describeWith(!!databaseUrl, 'a PostgreSQL server (DATABASE_URL)')(
  'postgres store on PostgreSQL (DATABASE_URL)',
  () => {
    const schema = `rl_${randomBytes(6).toString('hex')}`;
    let admin: pg.Pool;
    let poolA: pg.Pool;
    let poolB: pg.Pool;
    // Two pools on one schema stand for two server processes sharing the database.
    const schemaPool = () =>
      new pg.Pool({ connectionString: databaseUrl, max: 5, options: `-c search_path=${schema}` });

    beforeAll(async () => {
      admin = new pg.Pool({ connectionString: databaseUrl, max: 1 });
      await admin.query(`create schema ${schema}`);
      poolA = schemaPool();
      poolB = schemaPool();
      await poolA.query(RATE_LIMIT_TABLE_SQL);
    });
    afterAll(async () => {
      await Promise.all([poolA.end(), poolB.end()]);
      await admin.query(`drop schema ${schema} cascade`);
      await admin.end();
    });

    describeStoreContract('PostgreSQL', () => ({
      config: { kind: 'postgres', pool: poolA },
      sibling: { kind: 'postgres', pool: poolB },
    }));

    it('keeps its counters in the migrated table, namespaced by policy', async () => {
      const limiter = await createRateLimiter({ kind: 'postgres', pool: poolA });
      const key = randomUUID();
      await limiter.consume('building-links', key);
      await limiter.consume('building-links', key);
      await limiter.consume('mcp', key);
      await limiter.close();
      const { rows } = await admin.query<{ key: string; points: number }>(
        `select key, points from ${schema}."${RATE_LIMIT_TABLE}" where key like $1 order by key`,
        [`%${key}`],
      );
      expect(rows).toEqual([
        { key: `pds-rl:building-links:${key}`, points: 2 },
        { key: `pds-rl:mcp:${key}`, points: 1 },
      ]);
    });
  },
);
