import { fork, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { App } from '../../src/app.js';
import { ProjectSchema } from '../../src/catalogue/project.entity.js';
import { MAX_EXTRACTION_ATTEMPTS, uploadDocument } from '../../src/ingestion/ingest.service.js';
import { medianRound, processCpu, ratio, round } from './stats.js';

/**
 * `npm run worker` processes sharing one queue. The documents are stored first (no job
 * yet), the workers started and waited for, then every extraction is queued at once; the time runs
 * from the first job queued to the last extraction finished. Measured with one and with two worker
 * processes, at one extraction at a time per worker (where a second process has a core of its own
 * to use) and at the default two (where one worker already keeps both cores of this machine busy).
 */

export interface WorkerScaling {
  concurrency: number;
  oneWorkerPagesPerSecond: number;
  twoWorkersPagesPerSecond: number;
  ratio: number;
  /** Every round's ratio, in order; the figures above are the median round's. */
  roundRatios: number[];
  /** Where the CPU went in the median round (Linux: read from /proc), one worker and two. */
  cpu?: { one: RunCpu; two: RunCpu };
  /**
   * The most two workers could get over one with the CPU they used: one worker's time against the
   * two workers' CPU seconds spread over every core with none idle.
   */
  cpuCeiling?: number;
}

/** CPU seconds of each part of a run, from the first job queued to the last extraction finished. */
export interface RunCpu {
  /** Every PostgreSQL process: backends, WAL writer, checkpointer. */
  postgres: number;
  /** The `npm run worker` processes' own threads. */
  workers: number;
  /** Their extractor processes (pdf.js, normalizing, chunking). */
  extractors: number;
  /** This process: queueing the jobs and watching for the end. */
  bench: number;
  /** The machine's idle share over the run, all cores (0-1). */
  idle: number;
}

export interface WorkersFigure {
  documents: number;
  pages: number;
  cpus: number;
  /**
   * The machine's ceiling: raw unpdf in two processes at once against one, pages/s. Two workers
   * cannot scale past what two extractions at once get from the cores.
   */
  rawTwoProcessesRatio: number;
  rawTwoProcessesRoundRatios: number[];
  runs: WorkerScaling[];
  goal: string;
}

export interface WorkerBenchDocument {
  projectKey: string;
  category: string;
  name: string;
  type?: string | null;
  bytes: Uint8Array;
}

function startWorker(env: Record<string, string>): { child: ChildProcess; ready: Promise<void> } {
  const script = fileURLToPath(new URL('../../src/cli/worker.js', import.meta.url));
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ready = new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text: string) => {
      out += text;
      if (out.includes('extraction worker started')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker exited with ${code} before it started`)));
  });
  return { child, ready };
}

async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** CPU seconds so far of PostgreSQL's processes, of the given workers and their children, and of this one. */
function cpuNow(workerPids: number[]): Omit<RunCpu, 'idle'> & { machineIdle: number; machineTotal: number } {
  const totals = { postgres: 0, workers: 0, extractors: 0, bench: 0 };
  for (const { pid, parent, command, seconds } of processCpu()) {
    if (command.startsWith('postgres')) totals.postgres += seconds;
    else if (workerPids.includes(pid)) totals.workers += seconds;
    else if (workerPids.includes(parent)) totals.extractors += seconds;
    else if (pid === process.pid) totals.bench += seconds;
  }
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return { ...totals, machineIdle: cpu[3] + cpu[4], machineTotal: cpu.reduce((a, b) => a + b, 0) };
}

function cpuBetween(a: ReturnType<typeof cpuNow>, b: ReturnType<typeof cpuNow>): RunCpu {
  const d = (x: number, y: number) => round(y - x, 2);
  return {
    postgres: d(a.postgres, b.postgres),
    workers: d(a.workers, b.workers),
    extractors: d(a.extractors, b.extractors),
    bench: d(a.bench, b.bench),
    idle: round((b.machineIdle - a.machineIdle) / Math.max(1, b.machineTotal - a.machineTotal), 2),
  };
}

const onLinux = existsSync('/proc/stat');

async function oneRun(
  app: App,
  databaseUrl: string,
  docs: WorkerBenchDocument[],
  workers: number,
  concurrency: number,
): Promise<{ pages: number; seconds: number; cpu?: RunCpu }> {
  const em = app.db.orm.em.fork();
  const projects = new Map<string, number>();
  for (const key of new Set(docs.map((d) => d.projectKey))) {
    const project = em.create(ProjectSchema, { name: key, slug: `${key}-${randomUUID()}`, city: 'Toronto' });
    await em.flush();
    projects.set(key, project.id);
  }
  const ids: number[] = [];
  for (const d of docs) {
    const outcome = await uploadDocument(
      em,
      {
        projectId: projects.get(d.projectKey)!,
        category: d.category,
        name: d.name,
        type: d.type,
        content: d.bytes,
      },
      app.deps.config.maxUploadBytes,
    );
    ids.push(outcome.extractionId!);
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  // A starting worker queues every extraction left pending with no job (its reconciler), so the
  // first worker up would start on these before the others were up and before the clock started.
  // Until then they carry the attempt count the reconciler leaves alone.
  const setAttempts = (attempts: number) =>
    client.query('update extraction set attempts = $2 where id = any($1)', [ids, attempts]);
  await setAttempts(MAX_EXTRACTION_ATTEMPTS);
  const started = Array.from({ length: workers }, () =>
    startWorker({
      DATABASE_URL: databaseUrl,
      EXTRACTION_CONCURRENCY: String(concurrency),
      NODE_ENV: 'production',
      // Against raw unpdf, which reads no page images: OCR has its own section (ocr.bench.ts).
      OCR: 'off',
    }),
  );
  try {
    await Promise.all(started.map((w) => w.ready));
    const pids = started.map((w) => w.child.pid!);
    const cpu0 = onLinux ? cpuNow(pids) : null;
    const t0 = performance.now();
    await setAttempts(0);
    for (const id of ids) await app.deps.ingestion.queue.enqueue(id);
    for (;;) {
      const { rows } = await client.query<{ left: number; pages: number }>(
        `select count(*) filter (where status in ('pending', 'processing'))::int as left,
                coalesce(sum(page_count) filter (where status = 'completed'), 0)::int as pages
           from extraction where id = any($1)`,
        [ids],
      );
      if (rows[0].left === 0) {
        const seconds = (performance.now() - t0) / 1000;
        return { pages: rows[0].pages, seconds, ...(cpu0 ? { cpu: cpuBetween(cpu0, cpuNow(pids)) } : {}) };
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  } finally {
    await client.end();
    await Promise.all(started.map((w) => stopWorker(w.child)));
  }
}

/** Rounds per figure (each side of a ratio runs once a round). */
const ROUNDS = 3;

/** Raw unpdf over every document in `n` processes at once; pages per second, all together. */
async function rawInProcesses(docs: WorkerBenchDocument[], n: number): Promise<number> {
  const results = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<{ pages: number; seconds: number }>((resolve, reject) => {
          const child = fork(new URL('./raw-extract.js', import.meta.url), [], { serialization: 'advanced' });
          child.once('message', (m) => resolve(m as { pages: number; seconds: number }));
          child.once('error', reject);
          child.send(docs.map((d) => new Uint8Array(d.bytes)));
        }),
    ),
  );
  return results.reduce((n, r) => n + r.pages, 0) / Math.max(...results.map((r) => r.seconds));
}

export async function runWorkersBench(opts: {
  app: App;
  databaseUrl: string;
  docs: WorkerBenchDocument[];
  cpus: number;
  log: (line: string) => void;
}): Promise<WorkersFigure> {
  const rate = (r: { pages: number; seconds: number }) => r.pages / r.seconds;
  // Each figure alternates its two sides for ROUNDS rounds and keeps the median round's: one run
  // is 2-5 s here, and a single pair moved the ratio by ±0.3 between bench runs.
  const ceilings: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    opts.log(`  workers: raw unpdf in one process, then in two at once (round ${round + 1})`);
    const one = await rawInProcesses(opts.docs, 1);
    ceilings.push((await rawInProcesses(opts.docs, 2)) / one);
  }
  const runs: WorkerScaling[] = [];
  let pages = 0;
  for (const concurrency of [1, 2]) {
    const rounds: {
      one: number;
      two: number;
      oneSeconds: number;
      cpu?: { one: RunCpu; two: RunCpu };
    }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      opts.log(
        `  workers: one worker, then two, ${concurrency} extraction(s) at a time each (round ${round + 1})`,
      );
      const one = await oneRun(opts.app, opts.databaseUrl, opts.docs, 1, concurrency);
      const two = await oneRun(opts.app, opts.databaseUrl, opts.docs, 2, concurrency);
      pages = one.pages;
      rounds.push({
        one: rate(one),
        two: rate(two),
        oneSeconds: one.seconds,
        ...(one.cpu && two.cpu ? { cpu: { one: one.cpu, two: two.cpu } } : {}),
      });
    }
    const median = medianRound(rounds, (r) => r.two / r.one);
    const twoCpu = median.cpu
      ? median.cpu.two.postgres + median.cpu.two.workers + median.cpu.two.extractors + median.cpu.two.bench
      : 0;
    runs.push({
      concurrency,
      oneWorkerPagesPerSecond: round(median.one, 1),
      twoWorkersPagesPerSecond: round(median.two, 1),
      ratio: ratio(median.two, median.one),
      roundRatios: rounds.map((r) => ratio(r.two, r.one)),
      ...(median.cpu ? { cpu: median.cpu, cpuCeiling: round(median.oneSeconds / (twoCpu / opts.cpus)) } : {}),
    });
  }
  return {
    documents: opts.docs.length,
    pages,
    cpus: opts.cpus,
    rawTwoProcessesRatio: round(medianRound(ceilings, (c) => c)),
    rawTwoProcessesRoundRatios: ceilings.map((c) => round(c)),
    runs,
    goal: "two workers ≥ 1.7× one worker's throughput, or the reason it cannot on this machine",
  };
}
