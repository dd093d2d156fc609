import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadOperation, runOperation, type FacadeOperation } from '../../facades/operation.js';
import { FloorPlanMatchRequestSchema } from '../../facades/rest/rest.schemas.js';
import { validatorCompiler } from '../../facades/rest/rest.validation.js';
import { createContext, type RequestContext } from '../../src/context/context.js';
import { buildAppSchema } from '../../src/graphql/schema.js';
import { createApp, type App } from '../../src/app.js';
import { RATE_POLICIES, type RatePolicyName } from '../../src/auth/rate-limit.js';
import { loadConfig } from '../../src/config.js';
import { createApiKey } from '../../src/credentials/credentials.service.js';
import { seedDemo } from '../../src/demo/seed.js';
import { configureSearchCache } from '../../src/search/query/search-cache.js';
import { createFreshDatabase, type FreshDatabase } from '../support/database.js';
import { autocannon, bareRoute, ServerTimings, type LoadFigure, type LoadRequest } from './http.bench.js';
import { runFloodBench, type FloodFigure } from './flood.bench.js';
import { formatChanges, runChangesBench, type ChangesBenchResult } from './changes.bench.js';
import { runIngestBench, type IngestBenchResult } from './ingest.bench.js';
import { runOcrBench, type OcrFigure } from './ocr.bench.js';
import type { RunCpu } from './workers.bench.js';
import {
  asRequest,
  mcpContext,
  PAGING_GOAL_TEXT,
  runSearchBench,
  type SearchBenchResult,
} from './search.bench.js';
import type { SearchIndexKind } from '../../src/db/search-index.js';
import {
  closedLoop,
  cpuSince,
  latency,
  medianRound,
  perRequest,
  ratio,
  round,
  type CpuSplit,
  type Latency,
} from './stats.js';
import { parseSettings, startPrivateServer, type PrivateServer } from './private-server.js';
import { measureRoundTrip, type RoundTrip } from './round-trip.js';

/**
 * `npm run bench`: every figure the service's goals name, each against a baseline measured in the same
 * run (machines are noisy; ratios are what compare). Needs PostgreSQL: BENCH_DATABASE_URL or
 * DATABASE_URL (a maintenance database such as .../postgres), else the local default; a fresh
 * database is created for the run and dropped after. Never gates CI.
 *
 *   npm run bench -- [--only ingest,search,mcp,rest,changes,memory,flood,ocr] [--chunks 1000000] [--iterations 200] [--seconds 10]
 *                    [--search-index gin,rum] (the index paths the search figures run on; rum when the server has it)
 *                    [--memory-minutes 10] [--flood-chunks 200000] [--flood-seconds 20] [--flood-term deposit]
 *                    [--private-server shared_buffers=6GB,...] (every section on a PostgreSQL 15 cluster of
 *                    the bench's own, initdb'd with these settings, instead of the server named below)
 *
 * `memory` (not in the default set: it takes --memory-minutes) drives a mixed load (Floor Plan
 * Match, Building Link, MCP search) against the server and samples its RSS once a minute.
 * `flood` (not in the default set either) runs with the real rate limits and an
 * ingestion worker: one token floods common-term searches inside its limits while a second
 * client makes ordinary calls, then two decompression bombs at once and a 5 MB-text PDF.
 */

const { values: flags } = parseArgs({
  options: {
    only: { type: 'string', default: 'ingest,search,mcp,rest,changes' },
    'memory-minutes': { type: 'string', default: '10' },
    'flood-chunks': { type: 'string', default: '200000' },
    'flood-seconds': { type: 'string', default: '20' },
    'flood-term': { type: 'string', default: 'deposit' },
    chunks: { type: 'string', default: '1000000' },
    'search-index': { type: 'string', default: 'gin,rum' },
    iterations: { type: 'string', default: '200' },
    seconds: { type: 'string', default: '10' },
    out: { type: 'string', default: 'bench-report.json' },
    keep: { type: 'boolean', default: false },
    'private-server': { type: 'string' },
  },
});
const only = new Set(flags.only.split(',').map((s) => s.trim()));
const seconds = Number(flags.seconds);
const log = (line: string) => process.stderr.write(`${line}\n`);

const ADMIN_TOKEN = `bench-${randomBytes(16).toString('hex')}`;

/** The bench measures work, not the limiter's refusals: every policy gets a limit it cannot reach. */
const UNLIMITED = Object.fromEntries(
  Object.entries(RATE_POLICIES).map(([name, policy]) => [name, { ...policy, points: 1_000_000_000 }]),
) as Record<RatePolicyName, (typeof RATE_POLICIES)[RatePolicyName]>;

/** The bench's own PostgreSQL cluster, when --private-server asks for one (started in main). */
let privateServer: PrivateServer | null = null;

async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const base =
    privateServer?.url ??
    process.env.BENCH_DATABASE_URL ??
    process.env.DATABASE_URL ??
    'postgres://postgres@127.0.0.1:5432/postgres';
  let db: FreshDatabase;
  try {
    db = await createFreshDatabase(base, `pds_bench_${Date.now()}`);
  } catch (err) {
    throw new Error(`the benchmark needs PostgreSQL (set BENCH_DATABASE_URL): ${(err as Error).message}`, {
      cause: err,
    });
  }
  return {
    url: db.url,
    drop: async () => {
      if (flags.keep) log(`kept database ${db.name}`);
      else await db.drop();
    },
  };
}

interface FacadeFigure {
  facade: LoadFigure;
  inProcess?: { perSecond: number } & Latency;
  bare: LoadFigure;
  serverSide: Latency;
  /** Facade p95 over in-process p95 (MCP) or over the bare route's p95 (REST). */
  p95Ratio: number;
  throughputRatio: number;
  responseBytes: number;
  /** Server-side time with one connection sending one request at a time: the quiet-machine figure. */
  single?: Latency;
  /** REST: every round's throughput ratio, in order; the other figures are the median round's. */
  roundThroughputRatios?: number[];
  /**
   * CPU ms per answered request while each side ran, every round's in order: the bench process's
   * (under autocannon, the server alone), PostgreSQL's and the load generator's (autocannon, another
   * process; none in process). REST: the route and the bare route; MCP: the facade and the operation
   * in process.
   */
  cpuMsPerRequest?: { route: CpuSplit[]; baseline: CpuSplit[] };
}

interface MemoryFigure {
  minutes: number;
  /** RSS in MB sampled at the end of each minute of load. */
  rssMB: number[];
  /**
   * Where the RSS is, sampled with it: V8's heap (its size and what is live in it) and memory V8
   * does not manage (buffers, strings handed to sockets), so a step in RSS can be told apart.
   */
  heapMB: { total: number; used: number; external: number }[];
  /**
   * What a full collection leaves live in V8's heap before the load and after its last sample (the
   * bench runs with --expose-gc): the heap's `used` above depends on where in a collection cycle
   * its sample falls, this does not, so it tells a leak from a heap that grew. Not in between: one
   * collection after the first minute changed how V8 sized the heap for the rest of the run (RSS
   * then stayed within 1%), so it would change the figure it is meant to explain.
   */
  liveAfterCollectionMB?: { beforeLoad: number; atEnd: number };
  afterFirstMinuteMB: number;
  atEndMB: number;
  /** RSS at the end over RSS after the first minute. */
  growth: number;
  requests: number;
  goal: string;
}

interface Report {
  date: string;
  node: string;
  cpus: number;
  /** One loopback round trip between two processes, measured before the search and MCP sections. */
  roundTrip?: RoundTrip;
  /** Set when the sections ran on the bench's own cluster (--private-server) and its settings. */
  server?: { private: true; settings: Record<string, string> };
  ingest?: IngestBenchResult;
  search?: Omit<SearchBenchResult, 'tools' | 'schema' | 'projectIds'>;
  /** `roundP95Ratios`: every round's p95 ratio, in order; the other figures are the median round's. */
  mcp?: FacadeFigure & {
    goal: string;
    connections: number;
    roundP95Ratios: number[];
    /**
     * What bounds the facade's ratio from below on this machine: the bare route's CPU a request
     * (the same request and the same answer's bytes over the same HTTP stack and global hooks, and
     * the load generator reading them), the CPU of writing the answer's JSON as MCP requires it
     * (text and structuredContent), and the operation in process it is added to (the median round's).
     */
    floor: {
      bare: CpuSplit;
      /**
       * The bare route again, held to the facade's throughput (autocannon -R): at the bare route's
       * own rate many requests share each event-loop turn and wake-up, at the facade's each pays its
       * own, as the facade's requests do.
       */
      bareAtFacadeRate: { perSecond: number; cpu: CpuSplit };
      answerJsonMs: number;
      operation: CpuSplit;
    };
  };
  rest?: {
    floorplanMatch: FacadeFigure & {
      listings: number;
      parts: FloorPlanMatchParts;
      leafSerialization: LeafSerializationFigure;
    };
    buildingLink: FacadeFigure;
    goals: string[];
    connections: number;
  };
  memory?: MemoryFigure;
  flood?: FloodFigure;
  ocr?: OcrFigure;
  changes?: ChangesBenchResult;
}

function benchConfig(databaseUrl: string, env: Record<string, string> = {}) {
  return loadConfig({
    ...env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    DATABASE_URL: databaseUrl,
    PDS_ADMIN_TOKEN: ADMIN_TOKEN,
    RATE_LIMIT_STORE: 'memory',
    DEMO_SEED: 'off',
    HOST: '127.0.0.1',
    PORT: '0',
  });
}

async function listenLocal(app: App): Promise<string> {
  await app.server.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.server.address();
  if (!address || typeof address === 'string') throw new Error('the bench server is not listening on TCP');
  return `http://127.0.0.1:${address.port}`;
}

async function main(): Promise<void> {
  const { cpus } = await import('node:os');
  const report: Report = { date: new Date().toISOString(), node: process.version, cpus: cpus().length };
  if (flags['private-server'] !== undefined) {
    privateServer = await startPrivateServer(parseSettings(flags['private-server']));
    report.server = { private: true, settings: privateServer.settings };
    log(`private PostgreSQL cluster at ${privateServer.url} (${flags['private-server'] || 'defaults'})`);
  }
  try {
    await sections(report);
  } finally {
    privateServer?.stop();
  }
  writeFileSync(flags.out, JSON.stringify(report, null, 2));
  process.stdout.write(formatReport(report));
  log(`\nfull figures: ${flags.out}`);
}

async function sections(report: Report): Promise<void> {
  if (only.has('ingest')) {
    log('ingest: 10 projects of generated PDFs, end to end against raw unpdf');
    const db = await freshDatabase();
    try {
      report.ingest = await runIngestBench({ databaseUrl: db.url, log });
    } finally {
      await db.drop();
    }
    log(`  ingest: ${JSON.stringify(report.ingest)}`);
  }

  if (only.has('search') || only.has('mcp')) {
    report.roundTrip = await measureRoundTrip();
    log(`round trip between two processes: ${JSON.stringify(report.roundTrip)}`);
  }
  if (only.has('search') || only.has('mcp') || only.has('rest') || only.has('memory')) {
    const db = await freshDatabase();
    const app = await createApp(
      // Measures work, not refusals: no rate limit and no cap on searches in flight.
      benchConfig(db.url, { SEARCHES_IN_FLIGHT_PER_CREDENTIAL: '0' }),
      { logger: false, policies: UNLIMITED, worker: false },
    );
    const timings = new ServerTimings(app.server);
    const setBare = bareRoute(app.server, '/bench/bare');
    try {
      const demo = await seedDemo(app);
      const baseUrl = await listenLocal(app);
      const pro = demo.teams.find((t) => t.plan === 'pro')!;
      const search = await runSearchBench({
        app,
        databaseUrl: db.url,
        token: pro.mcpToken,
        chunks: only.has('search') ? Number(flags.chunks) : 1000,
        iterations: only.has('search') ? Number(flags.iterations) : 10,
        indexes: flags['search-index'].split(',').map((s) => s.trim()) as SearchIndexKind[],
        log,
      });
      if (only.has('search')) {
        const { tools: _t, schema: _s, projectIds: _p, ...figures } = search;
        report.search = figures;
      }
      // From here every search runs, as the issues measured them: the MCP and memory loads repeat one
      // query on an unchanged corpus, which the answer cache (src/search/query/search-cache.ts) would
      // otherwise answer after the first call.
      configureSearchCache(0);
      if (only.has('mcp')) {
        report.mcp = await mcpBench(app, baseUrl, pro.mcpToken, search, timings, setBare);
        log(`  mcp: ${JSON.stringify(report.mcp)}`);
      }
      if (only.has('rest')) {
        report.rest = await restBench(app, baseUrl, pro.apiKey!, timings, setBare);
        log(`  rest: ${JSON.stringify(report.rest)}`);
      }
      if (only.has('memory')) {
        // What the memory section measures is the server's: the bench's own per-request timings stop.
        timings.stop();
        const fusion = await fusionRequests(app, pro.apiKey!);
        report.memory = await memoryBench(baseUrl, [
          fusion.match,
          fusion.link,
          mcpSearchRequest(pro.mcpToken, search.projectIds[0]),
        ]);
        log(`  memory: ${JSON.stringify(report.memory)}`);
      }
    } finally {
      await app.close();
      await db.drop();
    }
  }

  if (only.has('changes')) {
    log('changes: event writes with the triggers on and off, webhook delivery against a bare POST loop');
    const db = await freshDatabase();
    try {
      report.changes = await runChangesBench({
        config: benchConfig(db.url, { WEBHOOK_ALLOW_LOOPBACK: 'true' }),
        operatorToken: ADMIN_TOKEN,
        policies: UNLIMITED,
        log,
      });
    } finally {
      await db.drop();
    }
  }

  if (only.has('flood')) {
    const db = await freshDatabase();
    // The real limits (the flood stays inside them) and an extraction worker in this process.
    // No answer cache: the flood repeats one search, and the point is what it costs when each runs.
    const app = await createApp(benchConfig(db.url, { SEARCH_CACHE_ENTRIES: '0' }), { logger: false });
    try {
      const demo = await seedDemo(app);
      const baseUrl = await listenLocal(app);
      const [row] = await app.db.orm.em
        .fork()
        .getConnection()
        .execute<{ building_id: number; project_id: number }[]>(
          'select id as building_id, project_id from building order by id limit 1',
        );
      report.flood = await runFloodBench({
        app,
        baseUrl,
        databaseUrl: db.url,
        operatorToken: ADMIN_TOKEN,
        flooderToken: demo.teams.find((t) => t.plan === 'pro')!.mcpToken,
        searcherToken: demo.teams.find((t) => t.plan === 'elite')!.mcpToken,
        secondApiKeys: await ordinaryKeys(app, demo.teams.find((t) => t.plan === 'elite')!.teamName, 8),
        buildingId: row.building_id,
        projectId: row.project_id,
        chunks: Number(flags['flood-chunks']),
        seconds: Number(flags['flood-seconds']),
        term: flags['flood-term'],
        log,
      });
      log(`  flood: ${JSON.stringify(report.flood)}`);
    } finally {
      await app.close();
      await db.drop();
    }
  }

  if (only.has('ocr')) {
    log('ocr: the demo corpus scans, one extractor, against the tesseract command');
    report.ocr = await runOcrBench({ log });
    log(`  ocr: ${JSON.stringify({ ...report.ocr, scoreText: undefined })}`);
  }
}

function cpuLine(c: RunCpu): string {
  return `PostgreSQL ${c.postgres}, workers ${c.workers}, extractors ${c.extractors}, bench ${c.bench} (machine ${Math.round(c.idle * 100)}% idle)`;
}

/** Rounds of (facade, operation in process) in the MCP figure. */
const MCP_ROUNDS = 3;

/**
 * Rounds of (route, bare route) in each REST figure. One pair can move Floor Plan Match's ratio by
 * a third between two runs of the same code minutes apart: the bare route it is divided by runs
 * faster or slower as the machine's speed moves between the two halves.
 */
const REST_ROUNDS = 3;
/** Rounds of Floor Plan Match's parts in process, and of its operation both ways: shorter and noisier than REST's. */
const PARTS_ROUNDS = 5;

/**
 * Seconds of unmeasured load on a route before its figures: without it the first measured run
 * carried the process's warm-up (JIT tiering, each pooled connection's first prepared statements)
 * that the runs after it did not (the MCP facade's first round came out well above its later
 * ones).
 */
const WARM_UP_SECONDS = 3;

function warmUp(baseUrl: string, request: LoadRequest, connections: number) {
  return autocannon(baseUrl, request, { connections, seconds: WARM_UP_SECONDS });
}

/** The goal's bound on the MCP facade's p95 over the same operation in process. */
const MCP_P95_GOAL = 1.2;

const MCP_SEARCH_ARGS = (projectId: number) => ({ query: 'quartz countertops', project_id: projectId });

/** `count` fresh API keys of the named team with the Building Link scope: one ordinary client each. */
async function ordinaryKeys(app: App, teamName: string, count: number): Promise<string[]> {
  const em = app.db.orm.em.fork();
  const [team] = await em
    .getConnection()
    .execute<{ id: number }[]>('select id from team where name = ?', [teamName]);
  const keys: string[] = [];
  for (let i = 0; i < count; i++) {
    const created = await createApiKey(
      em,
      { teamId: team.id, name: `bench ordinary client ${i}`, scopes: ['building-links'] },
      null,
    );
    keys.push(created.secret);
  }
  return keys;
}

function mcpSearchRequest(token: string, projectId: number): LoadRequest {
  return {
    path: '/mcp',
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'search-document-text', arguments: MCP_SEARCH_ARGS(projectId) },
    }),
  };
}

async function mcpBench(
  app: App,
  baseUrl: string,
  token: string,
  search: Awaited<ReturnType<typeof runSearchBench>>,
  timings: ServerTimings,
  setBare: (body: string) => void,
): Promise<NonNullable<Report['mcp']>> {
  const connections = 32;
  const projectId = search.projectIds[0];
  const args = MCP_SEARCH_ARGS(projectId);
  const { body, headers } = mcpSearchRequest(token, projectId) as Required<LoadRequest>;
  const probe = await fetch(`${baseUrl}/mcp`, { method: 'POST', headers, body });
  const probeText = await probe.text();
  if (probe.status !== 200 || !probeText.includes('structuredContent'))
    throw new Error(`MCP probe failed: ${probe.status} ${probeText.slice(0, 300)}`);
  setBare(probeText);

  const tool = search.tools.get('search-document-text')!;
  log('  mcp: warm-up');
  await warmUp(baseUrl, { path: '/mcp', method: 'POST', headers, body }, connections);
  const operationInProcess = () =>
    closedLoop(
      () =>
        asRequest(async () => {
          await runOperation(tool.operation, args, await mcpContext(app, token));
        }),
      connections,
      seconds * 1000,
    );
  // The facade and the operation in process alternate for MCP_ROUNDS rounds; the figures are the
  // median round's (by p95 ratio): one pair moved the ratio between 1.24 and 2.71 on one evening.
  const rounds: {
    facade: Awaited<ReturnType<typeof autocannon>>;
    serverSide: ReturnType<typeof timings.of>;
    inProcess: Awaited<ReturnType<typeof operationInProcess>>;
    p95Ratio: number;
    cpu: { route: CpuSplit; baseline: CpuSplit };
  }[] = [];
  for (let i = 0; i < MCP_ROUNDS; i++) {
    log(`  mcp: facade under autocannon, then the same GraphQL operation in process (round ${i + 1})`);
    timings.reset();
    const facadeCpu = cpuSince();
    const facade = await autocannon(
      baseUrl,
      { path: '/mcp', method: 'POST', headers, body },
      { connections, seconds },
    );
    const serverSide = timings.of('/mcp');
    const facadeMs = perRequest(facadeCpu(), serverSide.n);
    const inProcessCpu = cpuSince();
    const inProcess = await operationInProcess();
    const inProcessMs = perRequest(inProcessCpu(), inProcess.latencies.length);
    rounds.push({
      facade,
      serverSide,
      inProcess,
      p95Ratio: ratio(facade.p95, latency(inProcess.latencies).p97_5),
      cpu: { route: facadeMs, baseline: inProcessMs },
    });
  }
  const { facade, serverSide, inProcess, p95Ratio } = medianRound(rounds, (r) => r.p95Ratio);
  /** The bare route with the facade's answer, at its own rate or held to `overallRate`, and its CPU a request. */
  async function loadBare(label: string, overallRate?: number) {
    log(`  mcp: ${label}`);
    timings.reset();
    const cpu = cpuSince();
    const figure = await autocannon(
      baseUrl,
      { path: '/bench/bare', method: 'POST', headers, body },
      { connections, seconds, overallRate },
    );
    return { figure, cpu: perRequest(cpu(), timings.of('/bench/bare').n) };
  }
  const bare = await loadBare('bare route');
  const paced = await loadBare("bare route at the facade's rate", facade.perSecond);
  const inLatency = latency(inProcess.latencies);
  return {
    connections,
    facade,
    inProcess: { perSecond: inProcess.perSecond, ...inLatency },
    bare: bare.figure,
    serverSide,
    // The facade's client-side "p95" is autocannon's p97.5: compared with the in-process p97.5.
    p95Ratio,
    throughputRatio: ratio(facade.perSecond, inProcess.perSecond),
    roundP95Ratios: rounds.map((r) => r.p95Ratio),
    cpuMsPerRequest: {
      route: rounds.map((r) => r.cpu.route),
      baseline: rounds.map((r) => r.cpu.baseline),
    },
    floor: {
      bare: bare.cpu,
      bareAtFacadeRate: { perSecond: paced.figure.perSecond, cpu: paced.cpu },
      answerJsonMs: answerJsonMs(probeText),
      operation: medianRound(
        rounds.map((r) => r.cpu.baseline),
        machineMs,
      ),
    },
    responseBytes: Buffer.byteLength(probeText),
    goal: `the facade adds ≤ ${Math.round((MCP_P95_GOAL - 1) * 100)}% to the in-process operation latency (p95 ratio ≤ ${MCP_P95_GOAL})`,
  };
}

/** A split's machine total: server, PostgreSQL and load generator. */
const machineMs = (s: CpuSplit) => round(s.server + s.postgres + s.loadGenerator, 3);

/**
 * CPU ms, in this process, of writing a tool answer's JSON as the facade writes it (its text, then
 * the JSON-RPC response holding that text and the same value again: facades/mcp/mcp.plugin.ts),
 * the mean of many: work every MCP answer with structuredContent needs whatever the code around it.
 */
function answerJsonMs(responseText: string): number {
  const { id, result } = JSON.parse(responseText) as { id: unknown; result: { structuredContent: unknown } };
  const reps = 2000;
  let bytes = 0;
  const started = process.cpuUsage();
  for (let i = 0; i < reps; i++) {
    const text = JSON.stringify(result.structuredContent);
    bytes += JSON.stringify({
      jsonrpc: '2.0',
      id,
      result: { content: [{ type: 'text', text }], structuredContent: result.structuredContent },
    }).length;
  }
  const { user, system } = process.cpuUsage(started);
  if (bytes !== reps * responseText.length) throw new Error('the facade writes this answer differently');
  return round((user + system) / 1000 / reps, 3);
}

/** The Fusion REST calls the bench makes: Floor Plan Match with 100 listings, and one Building Link. */
async function fusionRequests(
  app: App,
  apiKey: string,
): Promise<{ match: Required<LoadRequest>; link: LoadRequest; listings: number }> {
  const client = app.db.orm.em.fork().getConnection();
  const plans = await client.execute<
    {
      building_id: number;
      bedrooms: number;
      dens: number;
      bathrooms: number;
      interior_sqft: number | null;
      exposure: string | null;
      unit_numbers: string[];
      stacks: string[];
      floor_min: number | null;
    }[]
  >(
    `select building_id, bedrooms, dens, bathrooms, interior_sqft, exposure, unit_numbers, stacks, floor_min
       from floor_plan where building_id is not null order by id limit 100`,
  );
  // 100 listings as an integrator sends them: some with a scheduled unit, most described only.
  const listings = Array.from({ length: 100 }, (_, i) => {
    const p = plans[i % plans.length];
    const unit =
      i % 4 === 0 && p.unit_numbers.length
        ? p.unit_numbers[0]
        : p.stacks.length && p.floor_min
          ? `${p.floor_min + (i % 5)}${p.stacks[0]}`
          : undefined;
    return {
      ref: `listing-${i}`,
      building_id: p.building_id,
      unit_number: unit,
      bedrooms: p.bedrooms,
      dens: p.dens,
      bathrooms: p.bathrooms,
      interior_sqft: p.interior_sqft ? p.interior_sqft + ((i % 7) - 3) * 5 : undefined,
      exposure: p.exposure ?? undefined,
    };
  });
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` };
  return {
    listings: listings.length,
    match: {
      path: '/api/v1/floorplan-match',
      method: 'POST',
      headers,
      body: JSON.stringify({ listings }),
    },
    link: { path: `/api/v1/building-links/${plans[0].building_id}`, method: 'GET', headers },
  };
}

async function restBench(
  app: App,
  baseUrl: string,
  apiKey: string,
  timings: ServerTimings,
  setBare: (body: string) => void,
): Promise<NonNullable<Report['rest']>> {
  const connections = 16;
  const requests = await fusionRequests(app, apiKey);

  async function measure({ path, method, headers, body }: LoadRequest, route: string): Promise<FacadeFigure> {
    const probe = await fetch(baseUrl + path, { method, headers, body });
    const text = await probe.text();
    if (probe.status !== 200) throw new Error(`REST probe ${path}: ${probe.status} ${text.slice(0, 300)}`);
    setBare(text);
    log(`  rest: ${path} warm-up`);
    await warmUp(baseUrl, { path, method, headers, body }, connections);
    await warmUp(baseUrl, { path: '/bench/bare', method, headers, body }, connections);
    // The route and the bare route alternate for REST_ROUNDS rounds; the figures are the median
    // round's (by throughput ratio), as in the MCP figure.
    const rounds: Omit<FacadeFigure, 'responseBytes' | 'single'>[] = [];
    const cpu: NonNullable<FacadeFigure['cpuMsPerRequest']> = { route: [], baseline: [] };
    for (let i = 0; i < REST_ROUNDS; i++) {
      log(`  rest: ${path} under autocannon, then the bare route (round ${i + 1})`);
      timings.reset();
      const routeCpu = cpuSince();
      const facade = await autocannon(baseUrl, { path, method, headers, body }, { connections, seconds });
      const serverSide = timings.of(route);
      cpu.route.push(perRequest(routeCpu(), serverSide.n));
      timings.reset();
      const bareCpu = cpuSince();
      const bare = await autocannon(
        baseUrl,
        { path: '/bench/bare', method, headers, body },
        { connections, seconds },
      );
      cpu.baseline.push(perRequest(bareCpu(), timings.of('/bench/bare').n));
      rounds.push({
        facade,
        bare,
        serverSide,
        p95Ratio: ratio(facade.p95, bare.p95),
        throughputRatio: ratio(facade.perSecond, bare.perSecond),
      });
    }
    log(`  rest: ${path} one request at a time`);
    timings.reset();
    await autocannon(
      baseUrl,
      { path, method, headers, body },
      { connections: 1, seconds: Math.max(2, Math.ceil(seconds / 2)) },
    );
    const single = timings.of(route);
    return {
      ...medianRound(rounds, (r) => r.throughputRatio),
      responseBytes: Buffer.byteLength(text),
      single,
      roundThroughputRatios: rounds.map((r) => r.throughputRatio),
      cpuMsPerRequest: cpu,
    };
  }

  const floorplanMatch = {
    listings: requests.listings,
    ...(await measure(requests.match, '/api/v1/floorplan-match')),
    parts: await floorPlanMatchParts(app, apiKey, requests.match.body),
    leafSerialization: await leafSerializationFigure(app, apiKey, requests.match.body),
  };
  const buildingLink = await measure(requests.link, '/api/v1/building-links/:id');
  return {
    connections,
    floorplanMatch,
    buildingLink,
    goals: [
      'Floor Plan Match (100 listings): throughput ≥ 0.25× the bare route with the same body; one request at a time ≤ 8 ms server time (p50, quiet machine)',
      'Building Link: throughput ≥ 0.25× the bare route with the same body',
    ],
  };
}

/** Floor Plan Match's body validator, compiled as the route compiles it. */
const validateBody = validatorCompiler({
  schema: FloorPlanMatchRequestSchema,
  method: 'POST',
  url: '/api/v1/floorplan-match',
  httpPart: 'body',
}) as (data: unknown) => boolean;

/** The operation's variables from the bench body, which must pass the route's validator. */
function validListings(body: string): { listings: unknown[] } {
  const parsed = JSON.parse(body) as { listings: unknown[] };
  if (!validateBody(parsed)) throw new Error('the bench body is invalid');
  return { listings: parsed.listings };
}

/** Floor Plan Match's operation loaded as the route loads it, and its context made as the route makes it. */
async function floorPlanMatchInProcess(
  app: App,
  apiKey: string,
): Promise<{ op: FacadeOperation; context: () => Promise<RequestContext> }> {
  const op = loadOperation(
    await buildAppSchema(),
    new URL('../../facades/rest', import.meta.url).pathname,
    'floorplan-match.graphql',
  );
  const context = () =>
    createContext(
      {
        transport: 'rest',
        authorization: `Bearer ${apiKey}`,
        ip: '127.0.0.1',
        requestId: 'bench',
        scope: 'floorplan-match',
        ratePolicy: 'floorplan-match',
      },
      app.deps,
    );
  return { op, context };
}

/** CPU ms a Floor Plan Match request spends in each of its parts in process, the median round's. */
interface FloorPlanMatchParts {
  /** JSON.parse of the request body, as Fastify's parser does. */
  parse: number;
  /** The route's body schema, through the route's validator (ajv). */
  validation: number;
  /** The one context: credential, scope, plan, rate limit. */
  context: number;
  /** The GraphQL operation: graphql-jit over the matching resolver. */
  operation: number;
  /** JSON.stringify of the answer, as the route's serializer does. */
  answerJson: number;
  /** Every round's sum of the parts. */
  roundSums: number[];
}

/**
 * Where a Floor Plan Match request's server CPU goes: each of the route's parts run alone in
 * process on the bench request, one call at a time, in PARTS_ROUNDS rounds. What the route's server
 * CPU a request has beyond their sum is the HTTP stack's (Fastify, hooks, the socket).
 */
async function floorPlanMatchParts(app: App, apiKey: string, body: string): Promise<FloorPlanMatchParts> {
  log('  rest: floorplan-match parts in process (parse, validation, context, operation, answer JSON)');
  const { op, context } = await floorPlanMatchInProcess(app, apiKey);
  const parsed = JSON.parse(body) as unknown;
  const variables = validListings(body);
  const ctx = await context();
  const answer = (await runOperation<{ result: unknown }>(op, variables, ctx)).result;
  const parts: Record<Exclude<keyof FloorPlanMatchParts, 'roundSums'>, () => unknown> = {
    parse: () => JSON.parse(body),
    validation: () => {
      if (!validateBody(parsed)) throw new Error('the bench body is invalid');
    },
    context,
    operation: () => runOperation(op, variables, ctx),
    answerJson: () => JSON.stringify(answer),
  };
  const collect = (globalThis as { gc?: () => void }).gc;
  const cpuMsACall = async (call: () => unknown) => {
    // Each part starts with an empty young generation: no collection owed by another part's calls.
    collect?.();
    const until = Date.now() + Math.max(500, (seconds * 1000) / 10);
    const started = process.cpuUsage();
    let calls = 0;
    while (Date.now() < until) {
      await call();
      calls++;
    }
    const { user, system } = process.cpuUsage(started);
    return (user + system) / 1000 / calls;
  };
  const names = Object.keys(parts) as (keyof typeof parts)[];
  for (const name of names) await cpuMsACall(parts[name]);
  const rounds: Record<keyof typeof parts, number>[] = [];
  for (let i = 0; i < PARTS_ROUNDS; i++) {
    const figures = {} as Record<keyof typeof parts, number>;
    for (const name of names) figures[name] = await cpuMsACall(parts[name]);
    rounds.push(figures);
  }
  const sums = rounds.map((r) => names.reduce((sum, name) => sum + r[name], 0));
  const median = Object.fromEntries(
    names.map((name) => [name, round(medianRound(rounds, (r) => r[name])[name], 3)]),
  ) as Record<keyof typeof parts, number>;
  return { ...median, roundSums: sums.map((x) => round(x, 3)) };
}

/** Floor Plan Match's operation in process with graphql-jit's per-leaf serialization and without it. */
interface LeafSerializationFigure {
  /** CPU ms a run, the median round's. */
  serializedMs: number;
  skippedMs: number;
  /** The share of the serialized run's CPU the skip saves, the median round's. */
  saving: number;
  roundSavings: number[];
}

/**
 * What skipping graphql-jit's per-leaf serialization earns on Floor Plan Match (facades/operation.ts
 * runs a query compiled without it where an answer's check shows every leaf is already what its
 * serializer would return): the route's operation in process, on the bench request's listings and
 * the same kind of context, run both ways in alternating rounds of one call at a time.
 */
async function leafSerializationFigure(
  app: App,
  apiKey: string,
  body: string,
): Promise<LeafSerializationFigure> {
  log('  rest: floorplan-match operation in process, with and without per-leaf serialization');
  const { op: skipping, context } = await floorPlanMatchInProcess(app, apiKey);
  if (!skipping.unserialized) throw new Error('floorplan-match.graphql no longer skips leaf serialization');
  const serialized: FacadeOperation = { ...skipping, unserialized: undefined };
  const variables = validListings(body);
  const collect = (globalThis as { gc?: () => void }).gc;
  const cpuMsARun = async (op: FacadeOperation) => {
    // Each side starts with an empty young generation: no collection owed by the other side's runs.
    collect?.();
    const until = Date.now() + Math.max(1000, (seconds * 1000) / 4);
    const started = process.cpuUsage();
    let runs = 0;
    while (Date.now() < until) {
      await runOperation(op, variables, await context());
      runs++;
    }
    const { user, system } = process.cpuUsage(started);
    return (user + system) / 1000 / runs;
  };
  await cpuMsARun(skipping);
  await cpuMsARun(serialized);
  const rounds: { serializedMs: number; skippedMs: number; saving: number }[] = [];
  for (let i = 0; i < PARTS_ROUNDS; i++) {
    const serializedMs = await cpuMsARun(serialized);
    const skippedMs = await cpuMsARun(skipping);
    rounds.push({ serializedMs, skippedMs, saving: round(1 - skippedMs / serializedMs, 3) });
  }
  const median = medianRound(rounds, (r) => r.saving);
  return {
    serializedMs: round(median.serializedMs, 3),
    skippedMs: round(median.skippedMs, 3),
    saving: median.saving,
    roundSavings: rounds.map((r) => r.saving),
  };
}

/**
 * Memory under a long mixed load: the three hot calls at once, minute after minute, with the
 * server's RSS sampled after each minute. Flat means the end is within 10% of the first minute.
 */
async function memoryBench(baseUrl: string, loads: LoadRequest[]): Promise<MemoryFigure> {
  const minutes = Math.max(2, Number(flags['memory-minutes']));
  const rssMB: number[] = [];
  const heapMB: MemoryFigure['heapMB'] = [];
  const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
  let requests = 0;
  const collect = (globalThis as { gc?: () => void }).gc;
  const live: number[] = [];
  const liveNow = () => {
    collect!();
    live.push(mb(process.memoryUsage().heapUsed));
    log(`  memory: after a full collection, ${live.at(-1)} MB live in V8's heap`);
  };
  if (collect) liveNow();
  for (let m = 1; m <= minutes; m++) {
    const figures = await Promise.all(
      loads.map((load) => autocannon(baseUrl, load, { connections: 4, seconds: 60 })),
    );
    requests += figures.reduce((n, f) => n + f.perSecond * 60, 0);
    const usage = process.memoryUsage();
    rssMB.push(mb(usage.rss));
    heapMB.push({ total: mb(usage.heapTotal), used: mb(usage.heapUsed), external: mb(usage.external) });
    log(
      `  memory: minute ${m}/${minutes}, RSS ${rssMB.at(-1)} MB (V8 heap ${mb(usage.heapTotal)} MB, ${mb(usage.heapUsed)} MB live; off the heap ${mb(usage.external)} MB)`,
    );
  }
  if (collect) liveNow();
  return {
    minutes,
    rssMB,
    heapMB,
    ...(live.length === 2 ? { liveAfterCollectionMB: { beforeLoad: live[0], atEnd: live[1] } } : {}),
    afterFirstMinuteMB: rssMB[0],
    atEndMB: rssMB.at(-1)!,
    growth: ratio(rssMB.at(-1)!, rssMB[0]),
    requests,
    goal: 'RSS at the end within 10% of RSS after the first minute (growth ≤ 1.1)',
  };
}

/**
 * The CPU per request on both sides of a figure, every round: the server's, then the machine's
 * (server, PostgreSQL and load generator), each with the median of the rounds' ratios written the
 * way the figure's own ratio is: a REST route's as the bare route's CPU over the route's (as its
 * throughput ratio), the MCP facade's as its CPU over the operation's in process (as its p95 ratio).
 */
function cpuSentences(
  per: string,
  [route, baseline]: readonly [string, string],
  cpu: NonNullable<FacadeFigure['cpuMsPerRequest']>,
  baselineOverRoute: boolean,
): string[] {
  const over = baselineOverRoute ? `${baseline} over ${route}` : `${route} over ${baseline}`;
  const sentence = (what: string, of: (s: CpuSplit) => number, parts: (s: CpuSplit) => string) => {
    const ratios = cpu.route.map((r, i) =>
      baselineOverRoute ? ratio(of(cpu.baseline[i]), of(r)) : ratio(of(r), of(cpu.baseline[i])),
    );
    const median = medianRound(ratios, (r) => r);
    return `${what} ${per}, every round: ${route} ${cpu.route.map(parts).join('; ')}; ${baseline} ${cpu.baseline.map(parts).join('; ')}; ${over} ${ratios.join(', ')} (median ×${median}).`;
  };
  return [
    sentence(
      'Server CPU ms',
      (s) => s.server,
      (s) => String(s.server),
    ),
    sentence(
      'Machine CPU ms (server + PostgreSQL + load generator)',
      machineMs,
      (s) => `${machineMs(s)} (${s.server} + ${s.postgres} + ${s.loadGenerator})`,
    ),
  ];
}

/**
 * The MCP figure's floor in words: at 32 connections the machine is saturated, so the p95 ratio
 * follows the machine's CPU a call (the report's CPU lines show both); a facade that added only
 * the bare route's HTTP and the answer's JSON would be this much over the operation in process.
 */
function floorSentence(f: NonNullable<Report['mcp']>['floor']): string {
  const operation = machineMs(f.operation);
  const bare = machineMs(f.bare);
  const budget = round(operation * (MCP_P95_GOAL - 1), 3);
  const paced = f.bareAtFacadeRate;
  const pacedMs = machineMs(paced.cpu);
  return `Floor: the bare route costs ${bare} ms of machine CPU a request (${f.bare.server} server + ${f.bare.postgres} PostgreSQL + ${f.bare.loadGenerator} load generator) and writing this answer's JSON as MCP requires (text and structuredContent) ${f.answerJsonMs} ms; over the operation in process (${operation} ms a call), a facade that added nothing else would be ×${ratio(operation + bare + f.answerJsonMs, operation)} by machine CPU, ×${ratio(operation + bare, operation)} without the JSON. Held to the facade's rate (${paced.perSecond} req/s), where each request pays its own event-loop turns and wake-ups as the facade's do, the bare route costs ${pacedMs} ms a request (${paced.cpu.server} + ${paced.cpu.postgres} + ${paced.cpu.loadGenerator}): ×${ratio(operation + pacedMs + f.answerJsonMs, operation)} with the JSON. The goal's ×${MCP_P95_GOAL} allows ${budget} ms a call for all of it, JSON-RPC and the tool's arguments included.`;
}

function formatReport(r: Report): string {
  const lines = [`# Benchmark report (${r.date}, Node ${r.node}, ${r.cpus} CPUs)`, ''];
  if (r.roundTrip) {
    lines.push(
      `One round trip between two processes on this machine (loopback TCP, one byte each way, one at a time, ${r.roundTrip.count.toLocaleString('en')} timed): ${r.roundTrip.wallUs} µs, and ${r.roundTrip.cpuUs} µs of CPU in the two processes together. The MCP facade adds one a call over the operation in process (the HTTP request and its answer); a project-scoped search makes one more than the raw search (the context's generation read).`,
      '',
    );
  }
  if (r.server) {
    const settings = Object.entries(r.server.settings).map(([k, v]) => `${k}=${v}`);
    lines.push(`PostgreSQL: the bench's own cluster (${settings.join(', ') || 'initdb defaults'})`, '');
  }
  if (r.ingest) {
    lines.push(
      '## Ingestion (end to end: upload, queue, extraction, chunks committed; against raw unpdf in process)',
      '| corpus | PDFs | pages | end to end pages/s | raw unpdf pages/s | ratio (median round) | every round |',
      '|---|---|---|---|---|---|---|',
      ...(['onePagers', 'realistic'] as const).map((k) => {
        const f = r.ingest![k];
        return `| ${k === 'onePagers' ? 'demo corpus (mostly one page)' : 'realistic (plus 5-40 page brochures, 5-20 page price lists)'} | ${f.documents} | ${f.pages} | ${f.endToEndPagesPerSecond} | ${f.rawPagesPerSecond} | ${f.ratio} | ${f.roundRatios.join(', ')} |`;
      }),
      `Goal: ${r.ingest.goal}`,
      '',
      ...(r.ingest.workers
        ? [
            `### npm run worker processes on one queue (${r.ingest.workers.documents} PDFs, ${r.ingest.workers.pages} pages, ${r.ingest.workers.cpus} CPUs)`,
            '| extractions at a time per worker | one worker pages/s | two workers pages/s | ratio (median round) | every round |',
            '|---|---|---|---|---|',
            ...r.ingest.workers.runs.map(
              (w) =>
                `| ${w.concurrency} | ${w.oneWorkerPagesPerSecond} | ${w.twoWorkersPagesPerSecond} | ${w.ratio} | ${w.roundRatios.join(', ')} |`,
            ),
            `Ceiling on this machine: raw unpdf in two processes at once gets ×${r.ingest.workers.rawTwoProcessesRatio} the pages/s of one (median round; every round: ${r.ingest.workers.rawTwoProcessesRoundRatios.join(', ')}).`,
            ...r.ingest.workers.runs.flatMap((w) =>
              w.cpu
                ? [
                    `CPU seconds at ${w.concurrency} extraction(s) a worker (median round), one worker → two: ${cpuLine(w.cpu.one)} → ${cpuLine(w.cpu.two)}; the most two workers could get with that CPU on ${r.ingest!.workers!.cpus} cores, none idle: ×${w.cpuCeiling}.`,
                  ]
                : [],
            ),
            `Goal: ${r.ingest.workers.goal}`,
            '',
          ]
        : []),
    );
  }
  if (r.search) {
    const scoped = r.search.figures.filter((f) => f.tool === 'searchDocumentText' && f.scope === 'project');
    const projectScoped = scoped.map(
      (f) => `${f.query} [${f.index}] ×${f.p95Ratio} (rounds ${f.roundP95Ratios.join(', ')})`,
    );
    const contextFloors = scoped.map(
      (f) =>
        `${f.query} [${f.index}] ${f.context.p50} ms, ×${ratio(f.raw.p50 + f.context.p50, f.raw.p50)} against ×${ratio(f.service.p50, f.raw.p50)}`,
    );
    const chunks = r.search.chunks.toLocaleString('en');
    lines.push(
      `## Search (${chunks} chunks in ${r.search.projects} projects, loaded with COPY in ${r.search.loadSeconds} s)`,
      "| index | query | share | operation | scope | matched | same count | p50 ms | p95 ms | today's path raw p95 ms | p95 ratio | answer kept p95 ms |",
      '|---|---|---|---|---|---|---|---|---|---|---|---|',
      ...r.search.figures.map(
        (f) =>
          `| ${f.index} | ${f.query} | ${f.share} | ${f.tool} | ${f.scope} | ${f.matched} | ${f.timedOut ? `${f.timedOut} timed out` : f.exact ? 'yes' : 'NO'} | ${f.service.p50} | ${f.service.p95} | ${f.raw.p95} | ${f.p95Ratio} | ${f.cached.p95} |`,
      ),
      ...r.search.paging.map(
        (p) =>
          `Cursor: a later page (page ${p.page}, after ${p.offset} ${p.tool === 'searchDocumentText' ? 'hits' : 'projects'}) of ${p.tool} global "${p.query}" at ${chunks} chunks costs ×${p.p50Ratio} the first (p50 ${p.later.p50} ms against ${p.first.p50} ms; p95 ${p.later.p95} against ${p.first.p95}): ${PAGING_GOAL_TEXT}: ${p.met ? 'met' : 'NOT MET'}`,
      ),
      ...r.search.goals.map((g) => `Goal: ${g}`),
      'p95 is of searches that ran (the answer cache emptied before each call); "answer kept" is the same call again with the corpus unchanged.',
      `End to end over raw, searchDocumentText project-scoped (p95): ${projectScoped.join('; ')}. Each is the median of its rounds by p95 ratio (the table shows that round). Goal: ≤ 1.3× at 1M chunks`,
      `Floor, searchDocumentText project-scoped: the one context alone (its generation read vouches for the cached credential, a round trip before any resolver work that the raw search does not make), at p50, and raw plus it over raw against the service over raw: ${contextFloors.join('; ')}`,
      '',
    );
  }
  if (r.mcp) {
    const m = r.mcp;
    lines.push(
      `## MCP tools/call search-document-text (${m.connections} connections, ${m.responseBytes}-byte response)`,
      '| path | req/s | p50 ms | p95 ms |',
      '|---|---|---|---|',
      `| /mcp facade | ${m.facade.perSecond} | ${m.facade.p50} | ${m.facade.p95} |`,
      `| same operation in process | ${m.inProcess!.perSecond} | ${m.inProcess!.p50} | ${m.inProcess!.p97_5} |`,
      `| bare Fastify route, same body | ${m.bare.perSecond} | ${m.bare.p50} | ${m.bare.p95} |`,
      `Server-side /mcp p50 ${m.serverSide.p50} ms, p95 ${m.serverSide.p95} ms. Facade/in-process: p95 (p97.5 on both sides) ×${m.p95Ratio} (median of ${m.roundP95Ratios.length} alternating rounds: ${m.roundP95Ratios.join(', ')}), throughput ×${m.throughputRatio}. Goal: ${m.goal}`,
      ...(m.cpuMsPerRequest
        ? cpuSentences('a call', ['the facade', 'the operation in process'], m.cpuMsPerRequest, false)
        : []),
      floorSentence(m.floor),
      '',
    );
  }
  if (r.rest) {
    lines.push(
      `## Fusion REST (${r.rest.connections} connections)`,
      '| route | req/s | p50 ms | p95 ms | server p95 ms | one at a time, server p50 ms | bare req/s | throughput ratio |',
      '|---|---|---|---|---|---|---|---|',
    );
    for (const [name, f] of [
      [`floorplan-match (${r.rest.floorplanMatch.listings} listings)`, r.rest.floorplanMatch],
      ['building-links', r.rest.buildingLink],
    ] as const) {
      lines.push(
        `| ${name} | ${f.facade.perSecond} | ${f.facade.p50} | ${f.facade.p95} | ${f.serverSide.p95} | ${f.single?.p50 ?? ''} | ${f.bare.perSecond} | ${f.throughputRatio} |`,
      );
    }
    lines.push(
      `Each row is the median of ${REST_ROUNDS} alternating rounds (route, then bare route) by throughput ratio; every round's: floorplan-match ${r.rest.floorplanMatch.roundThroughputRatios?.join(', ')}, building-links ${r.rest.buildingLink.roundThroughputRatios?.join(', ')}.`,
      ...(
        [
          ['floorplan-match', r.rest.floorplanMatch],
          ['building-links', r.rest.buildingLink],
        ] as const
      ).flatMap(([name, f]) =>
        f.cpuMsPerRequest
          ? cpuSentences('a request', ['the route', 'the bare route'], f.cpuMsPerRequest, true).map(
              (line) => `${name}: ${line}`,
            )
          : [],
      ),
      (({ parse, validation, context, operation, answerJson, roundSums }) =>
        `floorplan-match: its parts in process, CPU ms a request (the median round's): body JSON.parse ${parse}, body validation ${validation}, context ${context}, operation ${operation}, answer JSON.stringify ${answerJson}; their sum in every round ${roundSums.join(', ')} (the rest of the route's server CPU is the HTTP stack's).`)(
        r.rest.floorplanMatch.parts,
      ),
      (({ serializedMs, skippedMs, saving, roundSavings }, routeMs) =>
        `floorplan-match: its operation in process, CPU ms a run with graphql-jit's per-leaf serialization ${serializedMs}, with it skipped ${skippedMs}: the skip saves ${Math.round(saving * 100)} % of the operation (every round's: ${roundSavings.map((x) => `${Math.round(x * 100)} %`).join(', ')})${routeMs ? ` and ${Math.round(((serializedMs - skippedMs) / routeMs) * 100)} % of the route's server CPU a request (${routeMs} ms, the median round's)` : ''}.`)(
        r.rest.floorplanMatch.leafSerialization,
        r.rest.floorplanMatch.cpuMsPerRequest &&
          medianRound(
            r.rest.floorplanMatch.cpuMsPerRequest.route.map((c) => c.server),
            (ms) => ms,
          ),
      ),
      ...r.rest.goals.map((g) => `Goal: ${g}`),
      '',
    );
  }
  if (r.memory) {
    const m = r.memory;
    lines.push(
      `## Memory (${m.minutes} minutes of mixed load: Floor Plan Match, Building Link, MCP search; ${m.requests} requests)`,
      `RSS after the first minute ${m.afterFirstMinuteMB} MB, at the end ${m.atEndMB} MB: ×${m.growth} (per minute: ${m.rssMB.join(', ')} MB). Goal: ${m.goal}`,
      `V8 heap per minute, size / live: ${m.heapMB.map((h) => `${h.total}/${h.used}`).join(', ')} MB; off the heap: ${m.heapMB.map((h) => h.external).join(', ')} MB`,
      ...(m.liveAfterCollectionMB
        ? [
            `Live in V8's heap after a full collection: ${m.liveAfterCollectionMB.beforeLoad} MB before the load, ${m.liveAfterCollectionMB.atEnd} MB after it (a leak grows this; a heap that grew does not)`,
          ]
        : []),
      '',
    );
  }
  if (r.flood) {
    const f = r.flood;
    lines.push(
      `## One client inside its limits: ${f.chunks.toLocaleString('en')} chunks, "${f.term}" in ${f.termChunks.toLocaleString('en')} of them, ${f.seconds} s per phase`,
      `Load average before ${f.loadAverage.before.join(' / ')}, after ${f.loadAverage.after.join(' / ')} (${r.cpus} CPUs).`,
      `Flood: ${f.flood.sent} common-term searches from one token (${f.flood.perSecond}/s, MCP + GraphQL), answers by outcome ${JSON.stringify(f.flood.outcomes)}; an ordinary call was quick again ${f.flood.drainSeconds} s after the flood's last answer.`,
      `| second client (Building Link, ${f.second.clients} API keys of another team at 1.8/s each) | calls | p50 ms | p99 ms | max ms |`,
      '|---|---|---|---|---|',
      `| alone | ${f.second.alone.calls} | ${f.second.alone.p50} | ${f.second.alone.p99} | ${f.second.alone.max} |`,
      `| during the flood | ${f.second.duringFlood.calls} | ${f.second.duringFlood.p50} | ${f.second.duringFlood.p99} | ${f.second.duringFlood.max} |`,
      `p99 during/alone ×${f.second.p99Ratio} (answers during the flood by outcome ${JSON.stringify(f.second.outcomesDuringFlood)}).`,
      `Beside the goal, another team's MCP search of a rare term in one project (1/s): p50/p99 alone ${f.otherSearches.alone.p50}/${f.otherSearches.alone.p99} ms, during the flood ${f.otherSearches.duringFlood.p50}/${f.otherSearches.duringFlood.p99} ms (outcomes ${JSON.stringify(f.otherSearches.outcomesDuringFlood)}).`,
      `RSS: baseline ${f.rssMB.baseline} MB; peak during the flood ${f.rssMB.peakFlood} MB (+${f.rssMB.overBaselineFlood}), through two bombs at once ${f.rssMB.peakBombs} MB (+${f.rssMB.overBaselineBombs}), during the 5 MB-text PDF ${f.rssMB.peakTextPdf} MB.`,
      `Bombs: ${f.bombs.statuses.join(', ')} (${f.bombs.errors.join('; ')}).`,
      `5 MB-text PDF: ${f.textPdf.status}, ${f.textPdf.chars.toLocaleString('en')} characters, ${f.textPdf.chunks} chunks in ${f.textPdf.seconds} s; event-loop max stall ${f.textPdf.maxStallMs} ms (of which this process on the CPU: ${f.textPdf.ownMaxStallMs} ms).`,
      `HTTP 500s: ${f.http500s}; all answers by status ${JSON.stringify(f.statuses)}.`,
      ...f.goals.map((g) => `Goal: ${g}`),
      '',
    );
  }
  if (r.ocr) {
    const o = r.ocr;
    const native =
      'skipped' in o.native
        ? `the tesseract command: skipped (${o.native.skipped})`
        : `the tesseract command (${o.native.version}, one thread) on the same page images: ${o.native.pagesPerSecond} pages/s (${o.native.seconds} s); the service ×${o.ratio}`;
    lines.push(
      `## OCR (the demo corpus's ${o.documents} scans, ${o.pages} pages, at ${o.dpi} dpi)`,
      `One warm extractor: ${o.service.pagesPerSecond} pages/s (${o.service.seconds} s, pdf.js + MuPDF rendering + despeckling + tesseract.js); ${native}.`,
      `This process's event loop meanwhile: max stall ${o.stall.wallMs} ms (its own CPU ${o.stall.ownMs} ms).`,
      o.scoreText,
      ...o.goals.map((g) => `Goal: ${g}`),
      '',
    );
  }
  if (r.changes) lines.push(...formatChanges(r.changes));
  lines.push("Client-side p95 is autocannon's p97.5 (it reports no p95), so it errs high.", '');
  return lines.join('\n');
}

await main();
