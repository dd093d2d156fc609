import 'reflect-metadata';
import { stripVTControlCharacters } from 'node:util';
import type { FastifyInstance } from 'fastify';
import type { PGlite } from '@electric-sql/pglite';
import type { AppConfig } from './config.js';
import type { AppDeps } from './context/context.js';
import { migrateUp, openDatabase, type Database } from './db/orm.js';
import {
  createRateLimiter,
  type RATE_POLICIES,
  type RateLimiter,
  type RateStoreConfig,
} from './auth/rate-limit.js';
import { buildAppSchema } from './graphql/schema.js';
import { createIngestion } from './ingestion/ingestion.js';
import type { Extractor } from './ingestion/ingest.service.js';
import { registerGraphQL } from './http/graphql.plugin.js';
import { registerLoadShedding } from './http/load-shedding.js';
import { buildHttpServer } from './http/server.js';
import { registerOAuth } from './oauth/oauth.plugin.js';
import { registerMcp } from '../facades/mcp/mcp.plugin.js';
import { registerRest } from '../facades/rest/rest.plugin.js';
import { registerUploadRoutes } from '../facades/rest/upload.routes.js';

export interface App {
  server: FastifyInstance;
  db: Database;
  deps: AppDeps;
  close(): Promise<void>;
}

export interface AppOptions {
  logger?: boolean;
  /** Where the log goes instead of stdout (tests read it back). */
  logStream?: NodeJS.WritableStream;
  /** Reuse an embedded engine (tests clone one migrated template per file). */
  pglite?: PGlite;
  /** Override limiter policies (tests use small windows). */
  policies?: Partial<typeof RATE_POLICIES>;
  /** Run extraction jobs in this process (default true; `npm run worker` processes run them elsewhere). */
  worker?: boolean;
  /** Replace the PDF extractor (tests inject failures to prove retries). */
  extractor?: Extractor;
}

async function openLimiter(
  config: AppConfig,
  db: Database,
  log: FastifyInstance['log'],
  policies?: Partial<typeof RATE_POLICIES>,
): Promise<RateLimiter> {
  let store: RateStoreConfig;
  switch (config.rateLimitStore.kind) {
    case 'memory':
      store = { kind: 'memory' };
      break;
    case 'postgres': {
      const pool = await db.orm.em.getConnection().getNativeClient();
      store = { kind: 'postgres', pool };
      break;
    }
    case 'redis':
      store = { kind: 'redis', url: config.rateLimitStore.url };
      break;
  }
  return createRateLimiter(store, {
    policies,
    onStoreError: (err: unknown) =>
      log.warn({ err }, 'rate-limit store failed; using the in-memory fallback'),
  });
}

/** Builds the whole service (database, limiter, schema, HTTP routes) without listening. */
export async function createApp(config: AppConfig, opts: AppOptions = {}): Promise<App> {
  const server = buildHttpServer({ config }, { logger: opts.logger, logStream: opts.logStream });
  await registerLoadShedding(server, config.overload);
  const db = await openDatabase(config, {
    pglite: opts.pglite,
    log: (message) => server.log.debug({ component: 'mikro-orm' }, stripVTControlCharacters(message)),
  });
  const applied = await migrateUp(db.orm);
  if (applied.length) server.log.info({ migrations: applied }, 'database migrated');
  const limiter = await openLimiter(config, db, server.log, opts.policies);
  const ingestion = createIngestion(db.orm, config, server.log, {
    consume: opts.worker ?? true,
    extractor: opts.extractor,
  });
  const deps: AppDeps = { em: db.orm.em, limiter, config, log: server.log, ingestion };

  server.get('/healthz', () => ({ status: 'ok' }));
  server.get('/readyz', async (_req, reply) => {
    try {
      await db.orm.em.getConnection().execute('select 1');
      return { status: 'ready' };
    } catch (err) {
      server.log.warn({ err }, 'readiness check failed');
      return reply.code(503).send({ status: 'unavailable', message: 'database not reachable' });
    }
  });

  const schema = await buildAppSchema();
  await registerGraphQL(server, schema, deps);
  await registerOAuth(server, deps);
  await registerMcp(server, schema, deps);
  await registerRest(server, schema, deps);
  await registerUploadRoutes(server, deps);
  if (opts.worker ?? true) await ingestion.startWorker();

  let closed = false;
  return {
    server,
    db,
    deps,
    close: async () => {
      if (closed) return;
      closed = true;
      await server.close();
      await ingestion.stop();
      await limiter.close();
      await db.close();
    },
  };
}
