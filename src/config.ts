import { z } from 'zod';

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
  PDS_ADMIN_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
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
    .enum(['auto', 'off'])
    .default('auto')
    .describe('auto: seed demo data on the first embedded start'),
  DEMO_CORPUS_PROJECTS: z.coerce.number().int().min(0).max(200).default(12),
});

export type RateLimitStore = { kind: 'memory' } | { kind: 'postgres' } | { kind: 'redis'; url: string };

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
  readonly dataDir: string;
  readonly logLevel: z.infer<typeof LogLevel>;
  readonly nodeEnv: 'development' | 'production' | 'test';
  readonly maxUploadBytes: number;
  readonly demoSeed: boolean;
  readonly demoCorpusProjects: number;
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

/** Parses an environment (process.env by default) into a frozen config, or throws ConfigError listing every problem. */
export function loadConfig(env: Record<string, string | undefined> = process.env): AppConfig {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`));
  }
  const e = parsed.data;
  const embedded = !e.DATABASE_URL;
  const rateLimitStore = parseRateLimitStore(e.RATE_LIMIT_STORE, embedded);
  if (embedded && e.DATABASE_REPLICA_URLS) {
    throw new ConfigError(['DATABASE_REPLICA_URLS: replicas need DATABASE_URL (the primary)']);
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
    dataDir: e.DATA_DIR,
    logLevel: e.LOG_LEVEL,
    nodeEnv: e.NODE_ENV,
    maxUploadBytes: e.MAX_UPLOAD_BYTES,
    demoSeed: e.DEMO_SEED === 'auto',
    demoCorpusProjects: e.DEMO_CORPUS_PROJECTS,
  });
}
