import { availableParallelism } from 'node:os';
import { isIP } from 'node:net';
import { z } from 'zod';
import type { SearchIndexKind } from './db/search-index.js';

/** PDF extraction limits when the environment sets none (see ExtractionConfig). */
export const EXTRACTION_DEFAULTS = Object.freeze({
  maxMemoryMb: 512,
  timeoutMs: 60_000,
  maxPages: 2_000,
  maxObjects: 500_000,
  maxTextChars: 20_000_000,
});
/** Smallest memory limit an extractor process can start with (Node and pdf.js alone take ~60 MB). */
export const MIN_EXTRACT_MEMORY_MB = 96;

/** Entropy an operator token must carry, as estimated by estimatedEntropyBits. */
export const MIN_OPERATOR_TOKEN_BITS = 128;

/**
 * A conservative estimate of a chosen secret's entropy: its length times log2 of the number of
 * distinct characters it uses. A generated token (base64 or hex of 32 random bytes) scores well
 * over 128 bits; a phrase or a repeated pattern does not.
 */
export function estimatedEntropyBits(secret: string): number {
  const distinct = new Set(secret).size;
  return distinct < 2 ? 0 : [...secret].length * Math.log2(distinct);
}

/** Addresses only this machine can reach. */
function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * The one place that reads process.env. Everything is validated at start-up; every problem is
 * reported at once and the process exits non-zero, so a bad deployment fails fast and loudly.
 */
const LogLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

const EnvSchema = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  DATABASE_REPLICA_URLS: z
    .string()
    .regex(
      /^postgres(ql)?:\/\/[^,]+(,\s*postgres(ql)?:\/\/[^,]+)*$/,
      'must be a comma-separated list of postgres:// URLs',
    )
    .optional(),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  PUBLIC_BASE_URL: z.string().url().optional(),
  PDS_ADMIN_TOKEN: z
    .string()
    .min(24, 'must be at least 24 characters')
    .refine(
      (token) => estimatedEntropyBits(token) >= MIN_OPERATOR_TOKEN_BITS,
      `must carry at least ${MIN_OPERATOR_TOKEN_BITS} bits of entropy (length × log2 of its distinct characters): generate one, e.g. \`openssl rand -base64 32\``,
    )
    .optional()
    .describe(
      'the operator token (full access to every team): at least 24 characters and 128 bits of entropy. Unset on the embedded database, one is generated for each run and printed; a configured token is never printed',
    ),
  RATE_LIMIT_STORE: z
    .string()
    .regex(/^(memory|postgres|rediss?:\/\/.+)$/, "must be 'memory', 'postgres' or a redis:// URL")
    .optional(),
  DATA_DIR: z.string().min(1).default('./.data'),
  LOG_LEVEL: LogLevel.default('info'),
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  MAX_UPLOAD_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(50 * 1024 * 1024),
  DEMO_SEED: z
    .enum(['auto', 'on', 'off'])
    .default('auto')
    .describe(
      'demo data (teams, owners with a published password, keys, PDFs) on the embedded database only, never on DATABASE_URL. auto: when HOST is a loopback address (a local try-out); on: whatever HOST is; off: never',
    ),
  DEMO_CORPUS_PROJECTS: z.coerce.number().int().min(0).max(200).default(12),
  TRUST_PROXY: z
    .string()
    .optional()
    .describe('proxy hops to trust (a number) or comma-separated proxy addresses/CIDRs; unset trusts none'),
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(15_000),
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: z.coerce.number().int().min(0).default(1000),
  OVERLOAD_MAX_HEAP_BYTES: z.coerce.number().int().min(0).default(0),
  OVERLOAD_MAX_RSS_BYTES: z.coerce.number().int().min(0).default(0),
  OVERLOAD_RETRY_AFTER_SECONDS: z.coerce.number().int().min(1).max(3600).default(5),
  SEARCHES_IN_FLIGHT_PER_CREDENTIAL: z.coerce.number().int().min(0).max(1000).default(2),
  SEARCH_CACHE_ENTRIES: z.coerce.number().int().min(0).max(100_000).default(500),
  SEARCH_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(0)
    .max(1000)
    .default(Math.max(1, availableParallelism() - 1)),
  SEARCH_INDEX: z
    .enum(['gin', 'rum'])
    .default('gin')
    .describe('the chunk search index: gin, or rum (needs the rum extension on the server)'),
  EXTRACT_MEMORY_MB: z.coerce
    .number()
    .int()
    .min(MIN_EXTRACT_MEMORY_MB)
    .max(65_536)
    .default(EXTRACTION_DEFAULTS.maxMemoryMb),
  /** Extractions one process runs at once (extractor processes; pg-boss job slots are one more): one per core by default. */
  EXTRACTION_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(2),
  /** A job whose heartbeat is this old is a dead worker's: failed by the supervisor and retried (pg-boss needs ≥ 10). */
  JOB_HEARTBEAT_SECONDS: z.coerce.number().int().min(10).max(3600).default(20),
  EXTRACT_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(EXTRACTION_DEFAULTS.timeoutMs),
  EXTRACT_MAX_PAGES: z.coerce.number().int().min(1).default(EXTRACTION_DEFAULTS.maxPages),
  EXTRACT_MAX_OBJECTS: z.coerce.number().int().min(100).default(EXTRACTION_DEFAULTS.maxObjects),
  EXTRACT_MAX_TEXT_CHARS: z.coerce.number().int().min(1000).default(EXTRACTION_DEFAULTS.maxTextChars),
  RATE_LIMIT_STORE_TIMEOUT_MS: z.coerce.number().int().min(10).max(60_000).optional(),
  DB_POOL_MAX: z.coerce.number().int().min(1).max(1000).default(10),
  DB_ACQUIRE_TIMEOUT_MS: z.coerce.number().int().min(50).max(600_000).default(3000),
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(10_000),
});

export type RateLimitStore = { kind: 'memory' } | { kind: 'postgres' } | { kind: 'redis'; url: string };

/** Fastify's trustProxy: false, a hop count, or the addresses of the proxies whose X-Forwarded-For is believed. */
export type TrustProxy = false | number | string[];

/** Load shedding (503 before work starts) and the per-request deadline; 0 turns a threshold off. */
export interface OverloadConfig {
  readonly requestTimeoutMs: number;
  readonly maxEventLoopDelayMs: number;
  readonly maxHeapBytes: number;
  readonly maxRssBytes: number;
  readonly retryAfterSeconds: number;
}

/** PDF extraction: each extractor process's OS memory limit and what one document may cost. */
export interface ExtractionConfig {
  readonly maxMemoryMb: number;
  readonly timeoutMs: number;
  readonly maxPages: number;
  readonly maxObjects: number;
  readonly maxTextChars: number;
}

/** The PostgreSQL pool (real PostgreSQL only; the embedded engine is one in-process connection). */
export interface DatabasePoolConfig {
  readonly poolMax: number;
  /** How long a query waits for a free pooled connection before its request gets 503 (overload). */
  readonly acquireTimeoutMs: number;
  /** The server's `statement_timeout` for the service's statements; 0 turns it off. */
  readonly statementTimeoutMs: number;
}

export interface AppConfig {
  readonly databaseUrl: string | null;
  /** Streaming replicas for reads that tolerate lag (search, catalogue); empty: all on the primary. */
  readonly databaseReplicaUrls: readonly string[];
  readonly embedded: boolean;
  readonly host: string;
  readonly port: number;
  readonly publicBaseUrl: string;
  readonly adminToken: string | null;
  readonly rateLimitStore: RateLimitStore;
  /** A limiter store call slower than this is decided in memory; null: the store's default (Redis 100 ms, PostgreSQL 1000 ms). */
  readonly rateLimitStoreTimeoutMs: number | null;
  readonly dataDir: string;
  readonly logLevel: z.infer<typeof LogLevel>;
  readonly nodeEnv: 'development' | 'production' | 'test';
  readonly maxUploadBytes: number;
  readonly demoSeed: boolean;
  readonly demoCorpusProjects: number;
  readonly trustProxy: TrustProxy;
  readonly overload: OverloadConfig;
  readonly extraction: ExtractionConfig;
  /** Extractions one process runs at once (EXTRACTION_CONCURRENCY): its extractor processes; its job slots are one more. */
  readonly extractionConcurrency: number;
  /** JOB_HEARTBEAT_SECONDS: how old a job's heartbeat gets before its worker counts as dead. */
  readonly jobHeartbeatSeconds: number;
  readonly pool: DatabasePoolConfig;
  /** Searches one credential may run at once in one process (0: no cap); see src/context/in-flight.ts. */
  readonly searchesInFlightPerCredential: number;
  /** Searches running at once in this process, whoever asks (0: no cap); see src/context/in-flight.ts. */
  readonly searchConcurrency: number;
  /** Search answers kept per database pool until the corpus changes (0: none); src/search/search-cache.ts. */
  readonly searchCacheEntries: number;
  /** The chunk search index (SEARCH_INDEX): RUM verifies phrases in the index; GIN rechecks rows. */
  readonly searchIndex: SearchIndexKind;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

function parseRateLimitStore(value: string | undefined, embedded: boolean): RateLimitStore {
  if (!value) return embedded ? { kind: 'memory' } : { kind: 'postgres' };
  if (value === 'memory') return { kind: 'memory' };
  if (value === 'postgres') return { kind: 'postgres' };
  return { kind: 'redis', url: value };
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY: a hop count ("1": the nearest proxy's X-Forwarded-For entry is the client) or
 * proxy addresses/CIDRs. "true" (trust every hop) is refused: any client could then pick its own
 * address and dodge the per-address limits.
 */
function parseTrustProxy(value: string | undefined): TrustProxy | string {
  if (value === undefined || value === 'false' || value === '0') return false;
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value.split(',').map((e) => e.trim());
  const bad = entries.filter((e) => {
    if (PROXY_NAMES.has(e)) return false;
    const [addr, bits, ...rest] = e.split('/');
    const family = isIP(addr ?? '');
    if (!family || rest.length) return true;
    if (bits === undefined) return false;
    const n = Number(bits);
    return !/^\d+$/.test(bits) || n > (family === 4 ? 32 : 128);
  });
  if (bad.length) {
    return `TRUST_PROXY: expected a hop count or comma-separated IP addresses/CIDRs (or loopback, linklocal, uniquelocal); not understood: ${bad.join(', ')}`;
  }
  return entries;
}

/** Parses an environment (process.env by default) into a frozen config, or throws ConfigError listing every problem. */
export function loadConfig(env: Record<string, string | undefined> = process.env): AppConfig {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`));
  }
  const e = parsed.data;
  const trustProxy = parseTrustProxy(e.TRUST_PROXY);
  if (typeof trustProxy === 'string') throw new ConfigError([trustProxy]);
  const embedded = !e.DATABASE_URL;
  const rateLimitStore = parseRateLimitStore(e.RATE_LIMIT_STORE, embedded);
  if (embedded && e.DATABASE_REPLICA_URLS) {
    throw new ConfigError(['DATABASE_REPLICA_URLS: replicas need DATABASE_URL (the primary)']);
  }
  if (embedded && e.SEARCH_INDEX === 'rum') {
    throw new ConfigError([
      'SEARCH_INDEX: rum needs DATABASE_URL (a PostgreSQL server with the rum extension)',
    ]);
  }
  if (embedded && rateLimitStore.kind === 'postgres') {
    throw new ConfigError([
      'RATE_LIMIT_STORE: postgres needs DATABASE_URL (the embedded database is private to one process)',
    ]);
  }
  const host = e.HOST;
  const publicHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  return Object.freeze({
    databaseUrl: e.DATABASE_URL ?? null,
    databaseReplicaUrls: Object.freeze(
      (e.DATABASE_REPLICA_URLS ?? '')
        .split(',')
        .map((url) => url.trim())
        .filter(Boolean),
    ),
    embedded,
    host,
    port: e.PORT,
    publicBaseUrl: (e.PUBLIC_BASE_URL ?? `http://${publicHost}:${e.PORT}`).replace(/\/+$/, ''),
    adminToken: e.PDS_ADMIN_TOKEN ?? null,
    rateLimitStore,
    rateLimitStoreTimeoutMs: e.RATE_LIMIT_STORE_TIMEOUT_MS ?? null,
    dataDir: e.DATA_DIR,
    logLevel: e.LOG_LEVEL,
    nodeEnv: e.NODE_ENV,
    maxUploadBytes: e.MAX_UPLOAD_BYTES,
    demoSeed: embedded && (e.DEMO_SEED === 'on' || (e.DEMO_SEED === 'auto' && isLoopbackHost(host))),
    demoCorpusProjects: e.DEMO_CORPUS_PROJECTS,
    trustProxy,
    overload: Object.freeze({
      requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
      maxEventLoopDelayMs: e.OVERLOAD_MAX_EVENT_LOOP_DELAY_MS,
      maxHeapBytes: e.OVERLOAD_MAX_HEAP_BYTES,
      maxRssBytes: e.OVERLOAD_MAX_RSS_BYTES,
      retryAfterSeconds: e.OVERLOAD_RETRY_AFTER_SECONDS,
    }),
    searchesInFlightPerCredential: e.SEARCHES_IN_FLIGHT_PER_CREDENTIAL,
    searchConcurrency: e.SEARCH_CONCURRENCY,
    searchCacheEntries: e.SEARCH_CACHE_ENTRIES,
    searchIndex: e.SEARCH_INDEX,
    extraction: Object.freeze({
      maxMemoryMb: e.EXTRACT_MEMORY_MB,
      timeoutMs: e.EXTRACT_TIMEOUT_MS,
      maxPages: e.EXTRACT_MAX_PAGES,
      maxObjects: e.EXTRACT_MAX_OBJECTS,
      maxTextChars: e.EXTRACT_MAX_TEXT_CHARS,
    }),
    extractionConcurrency: e.EXTRACTION_CONCURRENCY,
    jobHeartbeatSeconds: e.JOB_HEARTBEAT_SECONDS,
    pool: Object.freeze({
      poolMax: e.DB_POOL_MAX,
      acquireTimeoutMs: e.DB_ACQUIRE_TIMEOUT_MS,
      statementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS,
    }),
  });
}
