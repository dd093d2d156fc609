import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import type { AppConfig } from '../config.js';
import { ENTITIES } from '../entities/index.js';
import { MIGRATIONS } from '../../migrations/index.js';

export type Database = {
  orm: MikroORM;
  /** The embedded engine when running on PGlite; null on real PostgreSQL. */
  pglite: PGlite | null;
  close(): Promise<void>;
};

/** Where migration files and the schema snapshot live in the source tree. */
export const MIGRATIONS_DIR = resolve(import.meta.dirname, '../../../migrations').replace(
  /\/dist\/migrations$/,
  '/migrations',
);

function baseOptions(log: (message: string) => void): Options {
  return {
    logger: log,
    entities: ENTITIES,
    extensions: [Migrator],
    migrations: {
      path: MIGRATIONS_DIR,
      pathTs: MIGRATIONS_DIR,
      migrationsList: MIGRATIONS,
      snapshot: true,
      snapshotOnMigrate: false,
      emit: 'ts',
      transactional: true,
      allOrNothing: true,
    },
    allowGlobalContext: false,
    debug: false,
    // Search needs raw text fields; nothing is hydrated lazily behind the caller's back.
    forceUndefined: false,
  };
}

/**
 * Opens the database the config names: real PostgreSQL for DATABASE_URL, otherwise the embedded
 * PGlite under DATA_DIR (a `memory://` data dir keeps it in memory, for tests).
 */
export async function openDatabase(
  config: Pick<AppConfig, 'databaseUrl' | 'dataDir'> & Partial<Pick<AppConfig, 'databaseReplicaUrls'>>,
  opts: {
    pglite?: PGlite;
    poolSize?: number;
    /** How long opening a new connection may take (a server that accepts but never answers). */
    connectTimeoutMs?: number;
    log?: (message: string) => void;
  } = {},
): Promise<Database> {
  // MikroORM's own messages (migrations applied) go to the app logger; silent unless one is given.
  const log = opts.log ?? (() => undefined);
  if (config.databaseUrl) {
    const orm = await MikroORM.init({
      ...baseOptions(log),
      clientUrl: config.databaseUrl,
      pool: { min: 0, max: opts.poolSize ?? 10 },
      driverOptions: { connectionTimeoutMillis: opts.connectTimeoutMs ?? 10_000, keepAlive: true },
      // Replicas serve only the reads that ask for them (`getConnection('read')`: search and the
      // catalogue); everything else, writes and reads right after writes, stays on the primary.
      replicas: (config.databaseReplicaUrls ?? []).map((clientUrl, i) => ({
        name: `replica-${i + 1}`,
        clientUrl,
      })),
      preferReadReplicas: false,
    });
    return { orm, pglite: null, close: () => orm.close(true) };
  }
  let pglite = opts.pglite;
  const owned = !pglite;
  if (!pglite) {
    const dataDir = config.dataDir.startsWith('memory://') ? config.dataDir : join(config.dataDir, 'pglite');
    if (!dataDir.startsWith('memory://')) mkdirSync(dataDir, { recursive: true });
    pglite = await PGlite.create(dataDir);
  }
  const orm = await MikroORM.init({
    ...baseOptions(log),
    dbName: 'postgres',
    driverOptions: createPgConfig(pglite),
    pool: { min: 0, max: 1 },
  });
  const engine = pglite;
  return {
    orm,
    pglite: engine,
    close: async () => {
      await orm.close(true);
      if (owned) await engine.close();
    },
  };
}

export async function migrateUp(orm: MikroORM): Promise<string[]> {
  const done = await orm.migrator.up();
  return done.map((m) => m.name);
}
