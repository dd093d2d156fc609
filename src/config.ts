import { availableParallelism } from 'node:os';
import { isIP } from 'node:net';
import { z } from 'zod';

/** PDF extraction limits when the environment sets none (see ExtractionConfig). */
export const EXTRACTION_DEFAULTS = Object.freeze({
  maxMemoryMb: 512,
  timeoutMs: 60_000,
  maxPages: 2_000,
  maxObjects: 500_000,
  maxTextChars: 20_000_000,
  ocr: Object.freeze({
    enabled: true,
    languages: 'eng',
    langPath: null as string | null,
    dpi: 300,
    maxPages: 50,
  }),
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
 * Documentation-only facts about a variable, read by the configuration reference generator
 * (src/docs/config-reference.ts): what an unset variable means when that is not a plain default,
 * and an example value for `.env.example`.
 */
interface VariableDoc {
  unset?: string;
  example?: string;
}
const doc = (meta: VariableDoc) => meta as Record<string, unknown>;

/**
 * Every environment variable the service reads, each written once: its validation, its default
 * and its `.describe()` text. `docs/operations.md`'s configuration reference and `.env.example`
 * are generated from this (`npm run docs:emit`; a test fails when they drift), and AppConfig is
 * the type of what loadConfig builds from it. This is the one place that reads process.env: it
 * is validated at start-up, every problem is reported at once and the process exits non-zero,
 * so a bad deployment fails fast and loudly.
 */
export const EnvSchema = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional()
    .describe('PostgreSQL 15+ connection URL.')
    .meta(
      doc({
        unset: 'embedded PostgreSQL (PGlite) under `DATA_DIR`, with demo data',
        example: 'postgres://postgres@127.0.0.1:5432/pds',
      }),
    ),
  DATABASE_REPLICA_URLS: z
    .string()
    .regex(
      /^postgres(ql)?:\/\/[^,]+(,\s*postgres(ql)?:\/\/[^,]+)*$/,
      'must be a comma-separated list of postgres:// URLs',
    )
    .optional()
    .describe(
      'Comma-separated PostgreSQL streaming replicas for the reads that tolerate replica lag (search and the catalogue); writes and reads right after a write stay on `DATABASE_URL`. Needs `DATABASE_URL`.',
    )
    .meta(
      doc({
        unset: 'every read on the primary',
        example: 'postgres://postgres@replica-1:5432/pds,postgres://postgres@replica-2:5432/pds',
      }),
    ),
  HOST: z.string().min(1).default('127.0.0.1').describe('Listen address.'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000).describe('Listen port (0: any free port).'),
  PUBLIC_BASE_URL: z
    .string()
    .url()
    .optional()
    .describe('External base URL, used in the OAuth metadata, `WWW-Authenticate` and the sign-in cookie.')
    .meta(doc({ unset: '`http://HOST:PORT`', example: 'https://pds.example.com' })),
  PDS_ADMIN_TOKEN: z
    .string()
    .min(24, 'must be at least 24 characters')
    .refine(
      (token) => estimatedEntropyBits(token) >= MIN_OPERATOR_TOKEN_BITS,
      `must carry at least ${MIN_OPERATOR_TOKEN_BITS} bits of entropy (length × log2 of its distinct characters): generate one, e.g. \`openssl rand -base64 32\``,
    )
    .optional()
    .describe(
      'Operator token for the operator mutations (`createTeam`, `createApiKey`, …): at least 24 characters and 128 bits of entropy (length × log2 of its distinct characters), e.g. `openssl rand -base64 32`. Never printed by `npm start`.',
    )
    .meta(
      doc({
        unset:
          'no operator on a real database; on the embedded database a token is generated for the run and printed',
      }),
    ),
  CURSOR_SECRET: z
    .string()
    .min(32, 'must be at least 32 characters')
    .optional()
    .describe(
      'Key that signs the MCP paging cursors (`next_cursor`); at least 32 characters, the same on every instance behind one address.',
    )
    .meta(doc({ unset: 'a random key per process: a cursor ends with the process that issued it' })),
  RATE_LIMIT_STORE: z
    .string()
    .regex(/^(memory|postgres|rediss?:\/\/.+)$/, "must be 'memory', 'postgres' or a redis:// URL")
    .optional()
    .describe(
      'Where rate-limit counters live: `memory` (one process), `postgres` (shared through `DATABASE_URL`) or a `redis://host:port` URL.',
    )
    .meta(doc({ unset: '`memory` when embedded, `postgres` otherwise', example: 'redis://127.0.0.1:6379' })),
  RATE_LIMIT_STORE_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(10)
    .max(60_000)
    .optional()
    .describe('A rate-limit store call slower than this is decided in memory with the same policy.')
    .meta(doc({ unset: 'Redis `100`, PostgreSQL `1000`' })),
  DATA_DIR: z
    .string()
    .min(1)
    .default('./.data')
    .describe('Where the embedded database and the demo corpus live.'),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('pino log level; secrets are never logged.'),
  NODE_ENV: z
    .enum(['development', 'production', 'test'])
    .default('development')
    .describe(
      '`npm start` sets `production`; `development` opens the Apollo Sandbox and introspection to everyone.',
    ),
  MAX_UPLOAD_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(50 * 1024 * 1024)
    .describe('Largest accepted PDF upload, in bytes (`PUT /admin/projects/{id}/documents`).'),
  DEMO_SEED: z
    .enum(['auto', 'on', 'off'])
    .default('auto')
    .describe(
      'Demo data (teams, owners with the published demo password, keys, PDFs), on the embedded database only, never on `DATABASE_URL`. `auto`: when `HOST` is a loopback address (a local try-out); `on`: whatever `HOST` is; `off`: never.',
    ),
  DEMO_CORPUS_PROJECTS: z.coerce
    .number()
    .int()
    .min(0)
    .max(200)
    .default(12)
    .describe('Projects that get generated demo PDFs on an embedded start (0: none).'),
  TRUST_PROXY: z
    .string()
    .optional()
    .describe(
      "Behind a load balancer: the proxy hops to trust (`1`) or the proxies' addresses and CIDRs (`10.0.0.0/8,loopback`; `linklocal`, `uniquelocal` too), so the per-address limits see the client's address. `true` is refused.",
    )
    .meta(doc({ unset: '`X-Forwarded-For` is ignored', example: '1' })),
  REQUEST_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(600_000)
    .default(15_000)
    .describe(
      'Per-request deadline on every transport, from the first byte; past it the client gets 503 with `Retry-After`.',
    ),
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(1000)
    .describe('Load shedding: new requests get 503 while the mean event-loop delay is above this (0: off).'),
  OVERLOAD_MAX_HEAP_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(0)
    .describe('Load shedding: new requests get 503 while the V8 heap is above this (0: off).'),
  OVERLOAD_MAX_RSS_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(0)
    .describe(
      "Load shedding: new requests get 503 while resident memory is above this (0: off); about 80% of the container's memory limit.",
    ),
  OVERLOAD_RETRY_AFTER_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(3600)
    .default(5)
    .describe('`Retry-After` on shed and timed-out requests, and on every 503.'),
  SEARCHES_IN_FLIGHT_PER_CREDENTIAL: z.coerce
    .number()
    .int()
    .min(0)
    .max(1000)
    .default(2)
    .describe(
      'Searches one credential may run at once in one process; past it a search is refused at once (0: no cap).',
    ),
  SEARCH_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(0)
    .max(1000)
    .optional()
    .describe(
      'Searches across all projects running at once in one process, whoever asks; the others wait their turn (0: no cap).',
    )
    .meta(doc({ unset: 'one fewer than the cores, at least `1`' })),
  SEARCH_CACHE_ENTRIES: z.coerce
    .number()
    .int()
    .min(0)
    .max(100_000)
    .default(500)
    .describe(
      'Search answers kept per database pool, given again until a chunk, document, extraction status or project name changes (0: none).',
    ),
  USAGE_FLUSH_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(60_000)
    .default(10_000)
    .describe(
      "How often the request counts per API key and MCP token (the settings' Usage page, GraphQL `teamUsage`) kept in memory are written to PostgreSQL; a crash loses at most this much of them.",
    ),
  SEARCH_INDEX: z
    .enum(['gin', 'rum'])
    .default('gin')
    .describe(
      'The chunk search index: `gin`, or `rum` (needs `DATABASE_URL` and the rum extension on the server).',
    ),
  EXTRACTION_IN_API: z
    .enum(['on', 'off'])
    .default('on')
    .describe(
      '`on`: this API process also runs PDF extraction jobs; `off`: it only serves requests and queues them, for deployments that run `npm run worker` processes (extraction then never competes with request handling on API nodes). `off` needs `DATABASE_URL`.',
    ),
  EXTRACTION_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(16)
    .default(2)
    .describe('Extractions one process runs at once (extractor processes; the queue claims one job more).'),
  JOB_HEARTBEAT_SECONDS: z.coerce
    .number()
    .int()
    .min(10)
    .max(3600)
    .default(20)
    .describe(
      'A job whose heartbeat is this old belongs to a dead worker: the supervisor fails it and it is retried.',
    ),
  EXTRACT_MEMORY_MB: z.coerce
    .number()
    .int()
    .min(MIN_EXTRACT_MEMORY_MB)
    .max(65_536)
    .default(EXTRACTION_DEFAULTS.maxMemoryMb)
    .describe('Operating-system memory limit (`RLIMIT_DATA`) of each PDF extractor process.'),
  EXTRACT_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(3_600_000)
    .default(EXTRACTION_DEFAULTS.timeoutMs)
    .describe("Wall-clock budget of one document's extraction."),
  EXTRACT_MAX_PAGES: z.coerce
    .number()
    .int()
    .min(1)
    .default(EXTRACTION_DEFAULTS.maxPages)
    .describe('Documents whose page tree claims more pages fail unread.'),
  EXTRACT_MAX_OBJECTS: z.coerce
    .number()
    .int()
    .min(100)
    .default(EXTRACTION_DEFAULTS.maxObjects)
    .describe('Documents with more PDF objects fail unread.'),
  EXTRACT_MAX_TEXT_CHARS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(EXTRACTION_DEFAULTS.maxTextChars)
    .describe('Documents with more extracted text fail.'),
  OCR: z
    .enum(['on', 'off'])
    .default('on')
    .describe(
      'on: pages without a text layer (scans) are rendered by MuPDF and read by Tesseract in the extractor process; off: they stay without text and a scanned document is no_text.',
    ),
  OCR_LANGUAGES: z
    .string()
    .regex(/^[a-z_]+(\+[a-z_]+)*$/i, "must be Tesseract language codes joined by '+', e.g. eng or eng+fra")
    .default(EXTRACTION_DEFAULTS.ocr.languages)
    .describe(
      "Tesseract language codes joined by '+'. Languages other than eng need OCR_LANG_PATH (the English data ships in the @tesseract.js-data/eng package).",
    ),
  OCR_LANG_PATH: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Directory holding <code>.traineddata.gz for each OCR language, read from disk and never downloaded.',
    )
    .meta(doc({ unset: 'the English data of the @tesseract.js-data/eng package', example: '/opt/tessdata' })),
  OCR_DPI: z.coerce
    .number()
    .int()
    .min(72)
    .max(600)
    .default(EXTRACTION_DEFAULTS.ocr.dpi)
    .describe('Resolution a page is rendered at for recognition; a page is capped at 20 million pixels.'),
  OCR_MAX_PAGES: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(EXTRACTION_DEFAULTS.ocr.maxPages)
    .describe(
      'Image pages without text one document may have recognized; a document with more fails with that reason. EXTRACT_TIMEOUT_MS bounds the time as well.',
    ),
  DB_POOL_MAX: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(10)
    .describe(
      "PostgreSQL connections per process for the service's own statements; the job queue keeps up to 4 more, and a consuming process one more that LISTENs for jobs.",
    ),
  DB_ACQUIRE_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(50)
    .max(600_000)
    .default(3000)
    .describe(
      "How long a request's statement waits for a free pooled connection, and a new connection may take to open (`connectionTimeoutMillis`); past it its request gets 503. A database probe waits this long too (at least 2 s) before it declares an outage.",
    ),
  DB_STATEMENT_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3_600_000)
    .default(10_000)
    .describe(
      "The server's `statement_timeout` for statements serving requests (0: off); the client stops waiting 2 s later. Background work has a pool of its own without it.",
    ),
  FEDERATION_TRACE_TOKEN: z
    .string()
    .min(24, 'must be at least 24 characters')
    .optional()
    .describe(
      'Secret the federation gateway sends in the `X-Federation-Trace-Token` header to receive federation traces (`apollo-federation-include-trace: ftv1`); without it only the operator gets them. At least 24 characters.',
    ),
  METRICS_TOKEN: z
    .string()
    .min(24, 'must be at least 24 characters')
    .optional()
    .describe(
      'Bearer token a Prometheus scraper sends to read `GET /metrics` (the operator token is accepted too); at least 24 characters.',
    )
    .meta(doc({ unset: 'only the operator token reads `/metrics`' })),
  OAUTH_CLIENT_METADATA_ALLOW_LOOPBACK: z
    .enum(['true', 'false'])
    .default('false')
    .describe(
      "`true` lets an OAuth client's metadata document (a client id that is an HTTPS URL) be served from a loopback address; still HTTPS only. For tests and development only.",
    ),
  OAUTH_CLIENT_METADATA_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(30_000)
    .default(5_000)
    .describe(
      "How long fetching an OAuth client's metadata document may take, connection to last byte, before the client is refused.",
    ),
  WEBHOOK_ALLOW_LOOPBACK: z
    .enum(['true', 'false'])
    .default('false')
    .describe('`true` also allows `http://` and loopback webhook URLs: for tests and development only.'),
  WEBHOOK_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(60_000)
    .default(10_000)
    .describe('How long a webhook delivery waits for the receiver to answer.'),
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .regex(/^\d+(\.\d+)?(,\s*\d+(\.\d+)?)*$/, 'must be comma-separated seconds')
    .default('5,300,1800,7200,18000,36000,36000,36000,36000,36000,36000,36000')
    .describe(
      'Seconds before each retry of a failed webhook delivery; after the last the delivery fails and its endpoint is disabled (the default spans about three days).',
    ),
  CHANGE_EVENT_RETENTION_DAYS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3650)
    .default(90)
    .describe(
      'Days change events are kept (the change feed, and the webhook delivery log with them); older ones are deleted by a background job every hour, never one whose webhook delivery is still pending. A feed cursor older than what is kept is refused (422), so a reader knows it missed events. 0 keeps every event.',
    ),
});

type Env = z.infer<typeof EnvSchema>;

export type RateLimitStore = { kind: 'memory' } | { kind: 'postgres' } | { kind: 'redis'; url: string };

/** Fastify's trustProxy: false, a hop count, or the addresses of the proxies whose X-Forwarded-For is believed. */
export type TrustProxy = false | number | string[];

/** The validated environment as the service uses it: the one mapping from variables to settings. */
function toAppConfig(e: Env, trustProxy: TrustProxy, rateLimitStore: RateLimitStore) {
  const publicHost = e.HOST === '0.0.0.0' || e.HOST === '::' ? 'localhost' : e.HOST;
  return Object.freeze({
    databaseUrl: e.DATABASE_URL ?? null,
    /** Streaming replicas for reads that tolerate lag (search, catalogue); empty: all on the primary. */
    databaseReplicaUrls: Object.freeze(
      (e.DATABASE_REPLICA_URLS ?? '')
        .split(',')
        .map((url) => url.trim())
        .filter(Boolean),
    ),
    embedded: !e.DATABASE_URL,
    host: e.HOST,
    port: e.PORT,
    publicBaseUrl: (e.PUBLIC_BASE_URL ?? `http://${publicHost}:${e.PORT}`).replace(/\/+$/, ''),
    adminToken: e.PDS_ADMIN_TOKEN ?? null,
    /** Signs paging cursors (src/context/cursor.ts); null: a random key per process. */
    cursorSecret: e.CURSOR_SECRET ?? null,
    metricsToken: e.METRICS_TOKEN ?? null,
    federationTraceToken: e.FEDERATION_TRACE_TOKEN ?? null,
    rateLimitStore,
    /** null: the store's own default (see RATE_LIMIT_STORE_TIMEOUT_MS). */
    rateLimitStoreTimeoutMs: e.RATE_LIMIT_STORE_TIMEOUT_MS ?? null,
    dataDir: e.DATA_DIR,
    logLevel: e.LOG_LEVEL,
    nodeEnv: e.NODE_ENV,
    maxUploadBytes: e.MAX_UPLOAD_BYTES,
    demoSeed: !e.DATABASE_URL && (e.DEMO_SEED === 'on' || (e.DEMO_SEED === 'auto' && isLoopbackHost(e.HOST))),
    demoCorpusProjects: e.DEMO_CORPUS_PROJECTS,
    trustProxy,
    /** Load shedding (503 before work starts) and the per-request deadline; 0 turns a threshold off. */
    overload: Object.freeze({
      requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
      maxEventLoopDelayMs: e.OVERLOAD_MAX_EVENT_LOOP_DELAY_MS,
      maxHeapBytes: e.OVERLOAD_MAX_HEAP_BYTES,
      maxRssBytes: e.OVERLOAD_MAX_RSS_BYTES,
      retryAfterSeconds: e.OVERLOAD_RETRY_AFTER_SECONDS,
    }),
    /** See src/context/in-flight.ts. */
    searchesInFlightPerCredential: e.SEARCHES_IN_FLIGHT_PER_CREDENTIAL,
    searchConcurrency: e.SEARCH_CONCURRENCY ?? Math.max(1, availableParallelism() - 1),
    /** See src/search/query/search-cache.ts. */
    searchCacheEntries: e.SEARCH_CACHE_ENTRIES,
    usageFlushIntervalMs: e.USAGE_FLUSH_INTERVAL_MS,
    searchIndex: e.SEARCH_INDEX,
    /** PDF extraction: each extractor process's OS memory limit and what one document may cost. */
    extraction: Object.freeze({
      maxMemoryMb: e.EXTRACT_MEMORY_MB,
      timeoutMs: e.EXTRACT_TIMEOUT_MS,
      maxPages: e.EXTRACT_MAX_PAGES,
      maxObjects: e.EXTRACT_MAX_OBJECTS,
      maxTextChars: e.EXTRACT_MAX_TEXT_CHARS,
      /** OCR of pages without a text layer (src/ingestion/ocr.ts). */
      ocr: Object.freeze({
        enabled: e.OCR === 'on',
        languages: e.OCR_LANGUAGES,
        langPath: e.OCR_LANG_PATH ?? null,
        dpi: e.OCR_DPI,
        maxPages: e.OCR_MAX_PAGES,
      }),
    }),
    /** Whether `npm start` runs extraction jobs in the API process too (EXTRACTION_IN_API). */
    extractionInApi: e.EXTRACTION_IN_API === 'on',
    extractionConcurrency: e.EXTRACTION_CONCURRENCY,
    jobHeartbeatSeconds: e.JOB_HEARTBEAT_SECONDS,
    /** The PostgreSQL pool (real PostgreSQL only; the embedded engine is one in-process connection). */
    pool: Object.freeze({
      poolMax: e.DB_POOL_MAX,
      acquireTimeoutMs: e.DB_ACQUIRE_TIMEOUT_MS,
      statementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS,
    }),
    /** The OAuth connector's authorization server (src/oauth). */
    oauth: Object.freeze({
      /** Fetching clients' metadata documents (src/oauth/client-metadata-document.ts). */
      clientMetadataDocuments: Object.freeze({
        allowLoopback: e.OAUTH_CLIENT_METADATA_ALLOW_LOOPBACK === 'true',
        timeoutMs: e.OAUTH_CLIENT_METADATA_TIMEOUT_MS,
      }),
    }),
    /** Webhook delivery (src/webhooks/delivery.ts). */
    webhooks: Object.freeze({
      allowLoopback: e.WEBHOOK_ALLOW_LOOPBACK === 'true',
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      retrySchedule: Object.freeze(e.WEBHOOK_RETRY_SCHEDULE.split(',').map(Number)),
    }),
    /** Days change events are kept; 0: forever (src/changes/retention.ts). */
    changeEventRetentionDays: e.CHANGE_EVENT_RETENTION_DAYS,
  });
}

export type AppConfig = ReturnType<typeof toAppConfig>;
export type OverloadConfig = AppConfig['overload'];
export type ExtractionConfig = AppConfig['extraction'];

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
  if (embedded && e.EXTRACTION_IN_API === 'off') {
    throw new ConfigError([
      'EXTRACTION_IN_API: off needs DATABASE_URL (workers cannot reach the embedded database, so nothing would extract)',
    ]);
  }
  if (embedded && rateLimitStore.kind === 'postgres') {
    throw new ConfigError([
      'RATE_LIMIT_STORE: postgres needs DATABASE_URL (the embedded database is private to one process)',
    ]);
  }
  return toAppConfig(e, trustProxy, rateLimitStore);
}
