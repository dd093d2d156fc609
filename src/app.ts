import 'reflect-metadata';
import { stripVTControlCharacters } from 'node:util';
import type { FastifyInstance } from 'fastify';
import type { PGlite } from '@electric-sql/pglite';
import type { AppConfig } from './config.js';
import type { AppDeps } from './context/context.js';
import { migrateUp, openDatabase, type Database } from './db/orm.js';
import { ensureSearchIndex } from './db/search-index.js';
import { configureSearchCache } from './search/query/search-cache.js';
import { DatabaseAvailability, postgresProbe } from './db/availability.js';
import { observePool } from './metrics/metrics.js';
import { registerMetrics } from './metrics/metrics.routes.js';
import {
  createRateLimiter,
  type RATE_POLICIES,
  type RateLimiter,
  type RateStoreConfig,
} from './auth/rate-limit.js';
import { buildAppSchema } from './graphql/schema.js';
import { createIngestion } from './ingestion/ingestion.js';
import type { Extractor } from './ingestion/ingest.service.js';
import type { JobTiming } from './ingestion/queue.js';
import { registerGraphQL } from './http/graphql.plugin.js';
import { registerLoadShedding } from './http/load-shedding.js';
import { buildHttpServer } from './http/server.js';
import { assertAudience } from './oauth/audience.js';
import { registerOAuth } from './oauth/oauth.plugin.js';
import { registerUsers, sessionAuth } from './users/users.plugin.js';
import { registerSettings } from './settings/settings.routes.js';
import { UsageCounter } from './usage/usage.counter.js';
import type { McpExtras } from '../facades/mcp/extras.js';
import { registerMcp } from '../facades/mcp/mcp.plugin.js';
import { registerApiReference } from '../facades/rest/api-reference.js';
import { registerRest } from '../facades/rest/rest.plugin.js';
import { registerUploadRoutes } from '../facades/rest/upload.routes.js';
import { startRederivation } from './search/text/rederive.js';
import { WebhookDeliverer } from './webhooks/delivery.js';
import { ChangeEventPruner } from './changes/retention.js';
import { registerPdfRoutes } from '../facades/rest/pdf.routes.js';
import { documentPdfs } from './documents/pdf.js';

export interface App {
  server: FastifyInstance;
  db: Database;
  deps: AppDeps;
  /** Signed webhook deliveries; running when this process runs the worker. */
  webhooks: WebhookDeliverer;
  /** Deletes change events past CHANGE_EVENT_RETENTION_DAYS; running when this process runs the worker. */
  changeEvents: ChangeEventPruner;
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
  /** Job heartbeat, supervision and retry timing (tests shorten them). */
  jobTiming?: Partial<JobTiming>;
  /** The time credentials are judged by (tests move it forward instead of sleeping). */
  clock?: () => Date;
  /** Resources, resource templates and prompts served on /mcp beside the service's own (tests add fixtures). */
  mcpExtras?: McpExtras;
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
      const pool = await db.requests.em.getConnection().getNativeClient();
      store = { kind: 'postgres', pool };
      break;
    }
    case 'redis':
      store = { kind: 'redis', url: config.rateLimitStore.url };
      break;
  }
  return createRateLimiter(store, {
    policies,
    storeTimeoutMs: config.rateLimitStoreTimeoutMs ?? undefined,
    onStoreError: (err: unknown) =>
      log.warn(
        { err },
        'rate-limit store failed; limits are kept per process in memory until it answers again',
      ),
    onStoreRecovered: () => log.info('rate-limit store answers again; limits are shared again'),
  });
}

/** /readyz must answer within a second even when the database hangs. */
const READY_PROBE_MS = 800;

async function probeDatabase(db: Database): Promise<{ ok: true } | { ok: false; reason: string }> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      db.requests.em.getConnection().execute('select 1'),
      new Promise((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${READY_PROBE_MS} ms`)), READY_PROBE_MS);
      }),
    ]);
    return { ok: true };
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
  }
}

/** Builds the whole service (database, limiter, schema, HTTP routes) without listening. */
export async function createApp(config: AppConfig, opts: AppOptions = {}): Promise<App> {
  const server = buildHttpServer({ config }, { logger: opts.logger, logStream: opts.logStream });
  await registerLoadShedding(server, config.overload);
  registerMetrics(server, config);
  // Real PostgreSQL is watched by a probe of its own (src/db/availability.ts); PGlite is in process.
  const probe = config.databaseUrl ? postgresProbe(config.databaseUrl) : null;
  const availability = new DatabaseAvailability(server.log, probe, {
    probeTimeoutMs: Math.max(2000, config.pool.acquireTimeoutMs),
  });
  // Once an outage is declared, requests still waiting on the database are answered 503 now.
  availability.onDown(() =>
    server.refuseInFlight(
      `The database is unavailable: retry in ${config.overload.retryAfterSeconds} seconds`,
    ),
  );
  const db = await openDatabase(config, {
    pglite: opts.pglite,
    requestBounds: {
      poolMax: config.pool.poolMax,
      acquireTimeoutMs: config.pool.acquireTimeoutMs,
      statementTimeoutMs: config.pool.statementTimeoutMs,
      // A transaction a request left open ends with the request's own deadline.
      idleInTransactionMs: config.overload.requestTimeoutMs,
    },
    onPoolCreated: (pool, role) => {
      observePool(pool, role);
      if (role !== 'requests') return;
      pool.on('error', (err) => availability.suspect(err));
    },
    log: (message) => server.log.debug({ component: 'mikro-orm' }, stripVTControlCharacters(message)),
  });
  const applied = await migrateUp(db.orm);
  if (applied.length) server.log.info({ migrations: applied }, 'database migrated');
  const searchIndex = await ensureSearchIndex(db.orm.em, config.searchIndex, !!db.pglite);
  configureSearchCache(config.searchCacheEntries);
  server.log.info({ searchIndex }, 'search index');
  const limiter = await openLimiter(config, db, server.log, opts.policies);
  const ingestion = createIngestion(db.orm, config, server.log, {
    consume: opts.worker ?? true,
    extractor: opts.extractor,
    jobTiming: opts.jobTiming,
  });
  const deps: AppDeps = {
    em: db.requests.em,
    limiter,
    config,
    log: server.log,
    ingestion,
    documentPdfs,
    auth: {
      ...sessionAuth(config),
      assertAudience: (viewer, transport) => assertAudience(viewer, transport, config),
    },
    availability,
    clock: opts.clock ?? (() => new Date()),
    usage: new UsageCounter(db.orm.em, server.log, config.usageFlushIntervalMs),
  };
  deps.usage.start();

  server.get('/healthz', () => ({ status: 'ok' }));
  // Ready: the database answers. Degraded (still 200: the node serves): the job queue cannot reach
  // its database, or the rate-limit store is given up on and limits hold per process.
  server.get('/readyz', async (_req, reply) => {
    const database = await probeDatabase(db);
    // The database answers: an outage still declared, or a queue still marked down, is checked
    // again now rather than reported from a probe taken while it was away.
    if (database.ok && availability.current().state === 'down') await availability.check();
    const queue = database.ok ? await ingestion.queue.check() : ingestion.queue.health();
    const store = limiter.health();
    const checks = {
      database: database.ok ? 'up' : `down: ${database.reason}`,
      queue: queue.state === 'down' ? `down: ${queue.reason}` : queue.state,
      rateLimitStore:
        store.state === 'ok' ? 'up' : `fallback: limits held per process in memory (${store.reason})`,
    };
    if (!database.ok) {
      return reply
        .code(503)
        .header('retry-after', String(config.overload.retryAfterSeconds))
        .send({ status: 'unavailable', message: `database not reachable: ${database.reason}`, checks });
    }
    const degraded = queue.state === 'down' || store.state === 'fallback';
    return { status: degraded ? 'degraded' : 'ready', checks };
  });

  const schema = await buildAppSchema();
  await registerUsers(server, deps);
  await registerGraphQL(server, schema, deps);
  await registerOAuth(server, deps);
  await registerSettings(server, deps);
  await registerMcp(server, schema, deps, opts.mcpExtras);
  await registerRest(server, schema, deps);
  await registerApiReference(server);
  await registerUploadRoutes(server, deps);
  await registerPdfRoutes(server, deps);
  const webhooks = new WebhookDeliverer(
    await db.orm.em.getConnection('write').getNativeClient(),
    { ...config.webhooks, pollMs: 1000 },
    server.log,
  );
  const pruner = new ChangeEventPruner(
    await db.orm.em.getConnection('write').getNativeClient(),
    config.changeEventRetentionDays,
    server.log,
  );
  if (opts.worker ?? true) {
    await ingestion.startWorker();
    webhooks.start();
    pruner.start();
  }
  // Stored search text derived by an older normalizer is derived again in the background, by every
  // process that runs extraction jobs (they share the work): src/search/text/rederive.ts.
  const rederivation = (opts.worker ?? true) ? startRederivation(db.orm.em, server.log) : null;

  let closed = false;
  return {
    server,
    db,
    deps,
    webhooks,
    changeEvents: pruner,
    close: async () => {
      if (closed) return;
      closed = true;
      await server.close();
      await deps.usage.stop();
      await webhooks.stop();
      await pruner.stop();
      await rederivation?.stop();
      await ingestion.stop();
      await limiter.close();
      availability.close();
      probe?.close();
      await db.close();
    },
  };
}
