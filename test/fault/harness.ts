import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { freePort } from '../support/net.js';
import {
  clusterPids,
  PG_BIN,
  pgTool,
  shareWithPostgres,
  startCluster,
  stopCluster,
} from '../support/postgres-server.js';

export const ROOT = resolve(import.meta.dirname, '../..');

function redisServerPath(): string | null {
  try {
    return execFileSync('which', ['redis-server'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

/** Why the fault tests cannot run here, or null when they can. */
export function faultSkipReason(): string | null {
  if (!process.env.DATABASE_URL) {
    return 'they need real PostgreSQL (DATABASE_URL set): the embedded PGlite runs inside the test process, so there is no server to stop, freeze or restart';
  }
  if (!existsSync(join(PG_BIN, 'initdb'))) return `no PostgreSQL 15 server binaries in ${PG_BIN}`;
  if (!redisServerPath()) return 'no redis-server on PATH';
  return null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A private PostgreSQL cluster on a free port (never the shared server): stopped, frozen and restarted at will. */
export class PrivatePostgres {
  readonly dir = mkdtempSync(join(tmpdir(), 'pds-fault-pg-'));
  readonly data = join(this.dir, 'data');
  port = 0;
  private frozen: number[] = [];

  async init(): Promise<void> {
    shareWithPostgres(this.dir);
    this.port = await freePort();
    pgTool('initdb', ['-D', this.data, '-U', 'postgres', '--auth=trust', '--no-sync']);
    writeFileSync(
      join(this.data, 'postgresql.auto.conf'),
      "listen_addresses = '127.0.0.1'\nfsync = off\nshared_buffers = 32MB\nmax_connections = 60\n",
    );
    this.start();
    const admin = new pg.Client({ connectionString: this.url('postgres') });
    await admin.connect();
    await admin.query('create database pds');
    await admin.end();
  }

  url(db = 'pds'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${db}`;
  }

  start(): void {
    startCluster(this.data, this.port, this.dir);
  }

  /** `fast`: every session gets admin_shutdown (57P01), then connections are refused. */
  stop(): void {
    stopCluster(this.data, 'fast');
  }

  /** SIGSTOP to the postmaster and every backend: connections stay open and nothing answers. */
  freeze(): void {
    this.frozen = clusterPids(this.data);
    for (const pid of this.frozen) process.kill(pid, 'SIGSTOP');
  }

  resume(): void {
    for (const pid of this.frozen) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // Already gone.
      }
    }
    this.frozen = [];
  }

  async query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    const client = new pg.Client({ connectionString: this.url() });
    await client.connect();
    try {
      return (await client.query(sql, params)).rows as T[];
    } finally {
      await client.end();
    }
  }

  destroy(): void {
    this.resume();
    try {
      stopCluster(this.data, 'immediate');
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }
}

/** A private redis-server on a free port (never the shared one). */
export class PrivateRedis {
  port = 0;
  private proc: ChildProcess | null = null;

  async start(): Promise<void> {
    this.port ||= await freePort();
    this.proc = spawn(
      redisServerPath()!,
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    const started = Date.now();
    while (Date.now() - started < 20_000) {
      try {
        execFileSync('redis-cli', ['-p', String(this.port), 'ping'], { stdio: 'pipe' });
        return;
      } catch {
        await sleep(100);
      }
    }
    throw new Error('private redis-server did not start');
  }

  url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    const proc = this.proc;
    this.proc = null;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGKILL');
    await exited;
  }

  freeze(): void {
    this.proc?.kill('SIGSTOP');
  }

  resume(): void {
    this.proc?.kill('SIGCONT');
  }
}

/** Compiles the service into dist/, as `npm start` does, for tests that run it as a process. */
export function buildService(): void {
  execFileSync(process.execPath, ['node_modules/tsgo/bin/tsc', '-p', 'tsconfig.build.json'], {
    cwd: ROOT,
    stdio: 'pipe',
  });
}

/**
 * The compiled service as `npm start` runs it on the embedded database, in an empty data directory
 * of its own (removed by `close`), listening on a free port.
 */
export async function startFreshService(
  env: Record<string, string>,
): Promise<{ service: ServiceProcess; dataDir: string; close: () => Promise<void> }> {
  buildService();
  const dataDir = mkdtempSync(join(tmpdir(), 'pds-fresh-service-'));
  const port = await freePort();
  const service = new ServiceProcess(
    'src/main.js',
    {
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      ...env,
    },
    port,
  );
  const close = async () => {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await service.listening();
  } catch (err) {
    await close();
    throw err;
  }
  return { service, dataDir, close };
}

/** A service process (`npm start`'s dist/src/main.js or `npm run worker`'s dist/src/cli/worker.js), its log kept. */
export class ServiceProcess {
  readonly lines: string[] = [];
  exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private readonly exited: Promise<void>;

  constructor(
    script: string,
    env: Record<string, string>,
    readonly port = 0,
  ) {
    const base = { ...process.env };
    delete base.DATABASE_URL;
    const proc = spawn(process.execPath, ['--enable-source-maps', join(ROOT, 'dist', script)], {
      cwd: ROOT,
      env: { ...base, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.proc = proc;
    let buffered = '';
    const collect = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const parts = buffered.split('\n');
      buffered = parts.pop()!;
      this.lines.push(...parts);
    };
    proc.stdout.on('data', collect);
    proc.stderr.on('data', collect);
    this.exited = new Promise((r) =>
      proc.once('exit', (code, signal) => {
        this.exit = { code, signal };
        r();
      }),
    );
  }

  private readonly proc: ChildProcess;

  get pid(): number {
    return this.proc.pid!;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Log records (pino JSON lines) whose message matches. */
  logged(msg: RegExp): { msg: string; level: number; time: number }[] {
    return this.lines
      .filter((l) => l.startsWith('{'))
      .map((l) => {
        try {
          return JSON.parse(l) as { msg: string; level: number; time: number };
        } catch {
          return null;
        }
      })
      .filter((r): r is { msg: string; level: number; time: number } => !!r && msg.test(r.msg ?? ''));
  }

  async waitFor(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 120_000): Promise<void> {
    const started = Date.now();
    while (Date.now() - started < timeoutMs) {
      if (this.exit)
        throw new Error(
          `service exited (${JSON.stringify(this.exit)}) while waiting for ${what}:\n${this.lines.slice(-30).join('\n')}`,
        );
      try {
        if (await check()) return;
      } catch {
        // Not yet.
      }
      await sleep(100);
    }
    throw new Error(`timed out waiting for ${what}:\n${this.lines.slice(-30).join('\n')}`);
  }

  async listening(): Promise<void> {
    await this.waitFor(async () => (await fetch(`${this.url}/healthz`)).ok, 'the server to listen');
  }

  kill(signal: NodeJS.Signals): Promise<void> {
    this.proc.kill(signal);
    return this.exited;
  }

  async stop(): Promise<void> {
    if (this.exit) return;
    this.proc.kill('SIGTERM');
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 20_000);
    await this.exited;
    clearTimeout(timer);
  }
}

export type Transport = 'rest' | 'mcp' | 'graphql';

export interface Sample {
  transport: Transport;
  phase: string;
  sentAt: number;
  ms: number;
  status: number;
  retryAfter: string | null;
  body: any;
  rpcId?: number;
  /** Set when no HTTP answer came (connection refused, reset, client timeout). */
  failure?: string;
}

export interface Credentials {
  apiKeys: string[];
  mcpToken: string;
  buildingId: number;
}

let rpcIds = 0;

/** One request of a transport, as an integrator, an AI client and an internal app send it. */
export async function call(
  base: string,
  transport: Transport,
  creds: Credentials,
  n: number,
  clientTimeoutMs: number,
): Promise<Omit<Sample, 'phase' | 'sentAt'>> {
  const started = Date.now();
  const signal = AbortSignal.timeout(clientTimeoutMs);
  let res: Response;
  let rpcId: number | undefined;
  try {
    if (transport === 'rest') {
      res = await fetch(`${base}/api/v1/building-links/${creds.buildingId}`, {
        headers: { authorization: `Bearer ${creds.apiKeys[n % creds.apiKeys.length]}` },
        signal,
      });
    } else if (transport === 'mcp') {
      rpcId = ++rpcIds;
      res = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${creds.mcpToken}`,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: rpcId,
          method: 'tools/call',
          params: { name: 'list-projects', arguments: { city: 'Toronto' } },
        }),
        signal,
      });
    } else {
      res = await fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${creds.mcpToken}` },
        body: JSON.stringify({ query: '{ projects(filter: {city: "Toronto"}) { total } }' }),
        signal,
      });
    }
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // Kept as text.
    }
    return {
      transport,
      ms: Date.now() - started,
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      body,
      rpcId,
    };
  } catch (err) {
    return {
      transport,
      ms: Date.now() - started,
      status: 0,
      retryAfter: null,
      body: null,
      rpcId,
      failure: String(err),
    };
  }
}

/** A bounded load: `rps` requests a second, round-robin over the transports, each tagged with the phase current when it was sent. */
export class Load {
  readonly samples: Sample[] = [];
  phase = 'healthy';
  private timer: NodeJS.Timeout | null = null;
  private readonly inflight = new Set<Promise<void>>();

  constructor(
    private readonly base: string,
    private readonly creds: Credentials,
    private readonly opts: { rps: number; clientTimeoutMs: number },
  ) {}

  start(): void {
    const transports: Transport[] = ['rest', 'mcp', 'graphql'];
    let n = 0;
    this.timer = setInterval(() => {
      const i = n++;
      const phase = this.phase;
      const sentAt = Date.now();
      const p = call(this.base, transports[i % 3], this.creds, i, this.opts.clientTimeoutMs).then((s) => {
        this.samples.push({ ...s, phase, sentAt });
      });
      this.inflight.add(p);
      void p.finally(() => this.inflight.delete(p));
    }, 1000 / this.opts.rps);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.all([...this.inflight]);
  }

  of(phase: string): Sample[] {
    return this.samples.filter((s) => s.phase === phase);
  }

  /** From `since`, when every transport got its first 200. */
  recoveredAt(since: number): number | null {
    const firsts = (['rest', 'mcp', 'graphql'] as const).map((t) => {
      const ok = this.samples.filter((s) => s.transport === t && s.sentAt >= since && s.status === 200);
      return ok.length ? Math.min(...ok.map((s) => s.sentAt + s.ms)) : null;
    });
    return firsts.includes(null) ? null : Math.max(...(firsts as number[]));
  }
}

/** What a 503 must look like on each transport: Retry-After, and the transport's own error shape. */
export function unavailableShapeProblems(s: Sample): string[] {
  const problems: string[] = [];
  if (!s.retryAfter) problems.push('no Retry-After');
  if (s.transport === 'rest' && typeof s.body?.message !== 'string')
    problems.push('REST body without message');
  if (s.transport === 'mcp' && (s.body?.id !== s.rpcId || typeof s.body?.error?.message !== 'string'))
    problems.push(`MCP error lost the id (${JSON.stringify(s.body)})`);
  if (s.transport === 'graphql' && s.body?.errors?.[0]?.extensions?.code !== 'SERVICE_UNAVAILABLE')
    problems.push(`GraphQL without SERVICE_UNAVAILABLE (${JSON.stringify(s.body)})`);
  return problems;
}

/** Operator GraphQL against a service process. */
export async function operator<T = any>(
  base: string,
  token: string,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<T> {
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: T; errors?: unknown[] };
  if (body.errors?.length) throw new Error(`operator call failed: ${JSON.stringify(body.errors)}`);
  return body.data as T;
}

export const sleepMs = sleep;
