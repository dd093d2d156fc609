import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { createApp, type App, type AppOptions } from '../../src/app.js';
import { loadConfig, type AppConfig } from '../../src/config.js';
import { clonedPglite, clonedPostgres } from './template.js';
import type { PGlite } from '@electric-sql/pglite';

export const OPERATOR_TOKEN = 'test-operator-token-0123456789abcdef';

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export interface TestApp {
  app: App;
  config: AppConfig;
  /** Base URL of the listening server (127.0.0.1, random port). */
  url: string;
  /** A real HTTP request to the server (jest cannot load light-my-request's ESM-only dependency). */
  request(
    method: string,
    path: string,
    init?: { headers?: Record<string, string>; body?: string | Uint8Array },
  ): Promise<HttpResult>;
  /** Runs a GraphQL operation over real HTTP (Fastify inject) with an optional bearer secret. */
  gql<T = any>(
    query: string,
    variables?: Record<string, unknown>,
    secret?: string | null,
  ): Promise<GqlResult<T>>;
  /** The operator's bearer secret. */
  operator: string;
  /** Same, as the operator; throws on any GraphQL error. */
  op<T = any>(query: string, variables?: Record<string, unknown>): Promise<T>;
  close(): Promise<void>;
}

export interface GqlResult<T> {
  status: number;
  data: T | null;
  errors: { message: string; extensions?: Record<string, any> }[] | undefined;
  headers: Headers;
}

/**
 * With DATABASE_URL set, each test app gets a PostgreSQL database of its own (a clone of the run's
 * migrated template, dropped at close); otherwise an in-memory PGlite cloned the same way. Apps
 * never share state. A test that names its own DATABASE_URL or an on-disk DATA_DIR gets exactly that.
 */
async function freshDatabase(
  env: Record<string, string>,
): Promise<{ url: string | null; pglite: PGlite | null; drop: () => Promise<void> }> {
  if (env.DATABASE_URL) return { url: null, pglite: null, drop: async () => {} };
  const base = process.env.DATABASE_URL;
  if (base) {
    const db = await clonedPostgres(base, `pds_t_${randomBytes(6).toString('hex')}`);
    return { url: db.url, pglite: null, drop: () => db.drop() };
  }
  if (env.DATA_DIR && !env.DATA_DIR.startsWith('memory://'))
    return { url: null, pglite: null, drop: async () => {} };
  const pglite = await clonedPglite();
  return { url: null, pglite, drop: () => pglite.close() };
}

export async function startTestApp(
  env: Record<string, string> = {},
  opts: AppOptions = {},
): Promise<TestApp> {
  const db = await freshDatabase(env);
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    PDS_ADMIN_TOKEN: OPERATOR_TOKEN,
    DATA_DIR: 'memory://',
    RATE_LIMIT_STORE: 'memory',
    DEMO_SEED: 'off',
    // Shedding on event-loop delay is off by default here: on a CPU shared by parallel suites a
    // stall says nothing about this app's load. Tests of shedding turn it on.
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
    ...(db.url ? { DATABASE_URL: db.url } : {}),
    ...env,
  });
  const app = await createApp(config, {
    logger: false,
    ...(db.pglite ? { pglite: db.pglite } : {}),
    ...opts,
  });
  // A test that needs PUBLIC_BASE_URL to be the real address (OAuth metadata) passes PORT too.
  await app.server.listen({ host: '127.0.0.1', port: env.PORT ? config.port : 0 });
  const url = `http://127.0.0.1:${(app.server.addresses()[0] as { port: number }).port}`;
  const request = async (
    method: string,
    path: string,
    init: { headers?: Record<string, string>; body?: string | Uint8Array } = {},
  ): Promise<HttpResult> => {
    const res = await fetch(url + path, { method, headers: init.headers, body: init.body });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  };
  const gql = async <T>(
    query: string,
    variables: Record<string, unknown> = {},
    secret: string | null = null,
  ) => {
    const res = await request('POST', '/graphql', {
      headers: {
        'content-type': 'application/json',
        ...(secret ? { authorization: `Bearer ${secret}` } : {}),
      },
      body: JSON.stringify({ query, variables }),
    });
    const body = (res.json ?? {}) as { data?: T; errors?: GqlResult<T>['errors'] };
    return { status: res.status, data: body.data ?? null, errors: body.errors, headers: res.headers };
  };
  const op = async <T>(query: string, variables: Record<string, unknown> = {}) => {
    const res = await gql<T>(query, variables, OPERATOR_TOKEN);
    if (res.errors?.length) throw new Error(`operator call failed: ${JSON.stringify(res.errors)}`);
    return res.data as T;
  };
  return {
    app,
    config,
    url,
    operator: OPERATOR_TOKEN,
    request,
    gql,
    op,
    close: async () => {
      await app.close();
      await db.drop();
    },
  };
}
