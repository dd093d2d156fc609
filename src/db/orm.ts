import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import type pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import type { AppConfig } from '../config.js';
import { learnBackend } from './cancel.js';
import { ENTITIES } from '../entities.js';
import { MIGRATIONS } from '../../migrations/index.js';

export type Database = {
  /**
   * Background work: migrations, extraction jobs, reconciliation, CLIs. No statement deadline (a
   * re-index or a large document's chunks may take minutes); on real PostgreSQL its own pool.
   */
  orm: MikroORM;
  /**
   * Requests: on real PostgreSQL a pool of its own whose connections carry the request bounds
   * (RequestBounds); the same as `orm` on PGlite or when opened without bounds.
   */
  requests: MikroORM;
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
 * What a request's database work is held to, through node-postgres's own options on every
 * connection of the requests' pool.
 */
export interface RequestBounds {
  poolMax: number;
  /** `connectionTimeoutMillis`: the wait for a pooled connection, and for a new one to open. */
  acquireTimeoutMs: number;
  /** `statement_timeout` (the server ends a statement) and `query_timeout` (2 s later, the client stops waiting); 0 for none. */
  statementTimeoutMs: number;
  /** `idle_in_transaction_session_timeout`: the server ends a session that left a transaction open this long. */
  idleInTransactionMs: number;
}

/** The background pool: migrations and jobs hold few connections; an abandoned transaction still ends. */
const BACKGROUND_POOL_MAX = 4;
const BACKGROUND_IDLE_IN_TRANSACTION_MS = 5 * 60_000;

/**
 * Opens the database the config names: real PostgreSQL for DATABASE_URL, otherwise the embedded
 * PGlite under DATA_DIR (a `memory://` data dir keeps it in memory, for tests).
 */
export async function openDatabase(
  config: Pick<AppConfig, 'databaseUrl' | 'dataDir'> & Partial<Pick<AppConfig, 'databaseReplicaUrls'>>,
  opts: {
    pglite?: PGlite;
    poolSize?: number;
    /** Bounds for a separate pool that serves requests (see RequestBounds); none: one pool for all. */
    requestBounds?: RequestBounds;
    /** Told of each pool MikroORM creates (the primary's and each replica's) and what it serves. */
    onPoolCreated?: (pool: pg.Pool, role: 'requests' | 'background') => void;
    log?: (message: string) => void;
  } = {},
): Promise<Database> {
  // MikroORM's own messages (migrations applied) go to the app logger; silent unless one is given.
  const log = opts.log ?? (() => undefined);
  if (config.databaseUrl) {
    const clientUrl = config.databaseUrl;
    // MikroORM passes `driverOptions` to node-postgres's Pool (and so to each Client) for the
    // primary and every replica; `onPoolCreated` is its hook for each pool it creates.
    const init = (max: number, driverOptions: Record<string, unknown>) =>
      MikroORM.init({
        ...baseOptions(log),
        clientUrl,
        pool: { min: 0, max },
        driverOptions: { keepAlive: true, ...driverOptions },
        // Replicas serve only the reads that ask for them (`getConnection('read')`: search and the
        // catalogue); everything else, writes and reads right after writes, stays on the primary.
        replicas: (config.databaseReplicaUrls ?? []).map((url, i) => ({
          name: `replica-${i + 1}`,
          clientUrl: url,
        })),
        preferReadReplicas: false,
      });
    const bounds = opts.requestBounds;
    const orm = await init(bounds ? BACKGROUND_POOL_MAX : (opts.poolSize ?? 10), {
      connectionTimeoutMillis: 10_000,
      idle_in_transaction_session_timeout: BACKGROUND_IDLE_IN_TRANSACTION_MS,
      // With no pool of their own, requests run here: their statements are cancellable.
      ...(bounds ? {} : { onConnect: learnBackend }),
      onPoolCreated: (pool: pg.Pool) => opts.onPoolCreated?.(pool, bounds ? 'background' : 'requests'),
    });
    if (!bounds) return { orm, requests: orm, pglite: null, close: () => orm.close(true) };
    const requests = await init(bounds.poolMax, {
      connectionTimeoutMillis: bounds.acquireTimeoutMs,
      ...(bounds.statementTimeoutMs > 0
        ? { statement_timeout: bounds.statementTimeoutMs, query_timeout: bounds.statementTimeoutMs + 2000 }
        : {}),
      idle_in_transaction_session_timeout: bounds.idleInTransactionMs,
      // A request's statement is cancelled when the request is (src/db/cancel.ts).
      onConnect: learnBackend,
      onPoolCreated: (pool: pg.Pool) => opts.onPoolCreated?.(pool, 'requests'),
    }).catch(async (err: unknown) => {
      await orm.close(true);
      throw err;
    });
    return {
      orm,
      requests,
      pglite: null,
      close: async () => {
        await requests.close(true);
        await orm.close(true);
      },
    };
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
  // The adapter's options cannot be copied (MikroORM would copy them to add `onPoolCreated`).
  opts.onPoolCreated?.(await orm.em.getConnection().getNativeClient(), 'requests');
  const engine = pglite;
  return {
    orm,
    requests: orm,
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
