import type { FastifyBaseLogger } from 'fastify';
import type { MikroORM } from '@mikro-orm/postgresql';
import { EXTRACTION_DEFAULTS, type AppConfig, type ExtractionConfig } from '../config.js';
import { closeExtractors, extractPdf } from './extract.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  processExtraction,
  unfinishedExtractions,
  uploadAndQueue,
  type Extractor,
  type UploadInput,
  type UploadOutcome,
} from './ingest.service.js';
import { InProcessQueue, PgBossQueue, type ExtractionQueue, type JobTiming } from './queue.js';
import { extractionDuration, extractions, metrics } from '../metrics/metrics.js';

declare module '../context/context.js' {
  interface AppDeps {
    /** The extraction queue and its worker: uploads enqueue, `npm run worker` consumes. */
    ingestion: Ingestion;
  }
}

export interface Ingestion {
  queue: ExtractionQueue;
  /** Stores an uploaded PDF and queues its extraction (`uploadAndQueue` on this queue). */
  upload(em: EntityManager, input: UploadInput, maxBytes: number): Promise<UploadOutcome>;
  /** Starts consuming extraction jobs in this process, and the reconciler beside it. */
  startWorker(): Promise<void>;
  /**
   * Queues every pending or processing extraction that has no live job (its queueing failed, or
   * its job gave up while the database was away); returns how many were queued.
   */
  reconcile(): Promise<number>;
  stop(): Promise<void>;
}

/** The queue /metrics reads its depth from: the last one created in this process (one per app). */
let measured: ExtractionQueue | null = null;
metrics.gauge(
  'pds_extraction_queue_jobs',
  'Extraction jobs waiting (queued or due for a retry) and running, as the queue reports them',
  ['state'],
  async function () {
    const depth = await measured?.depth().catch(() => null);
    this.reset();
    if (!depth) return;
    this.set({ state: 'queued' }, depth.queued);
    this.set({ state: 'active' }, depth.active);
  },
);

/** How often a consuming process looks for extractions without a live job. */
export const RECONCILE_INTERVAL_MS = 30_000;

/** Extraction in a memory-limited child process that also normalizes and chunks (see extract.ts). */
export function extractorFor(limits: ExtractionConfig, poolSize?: number): Extractor {
  return (bytes) => extractPdf(bytes, { ...limits, chunk: true, poolSize });
}

export const defaultExtractor: Extractor = extractorFor(EXTRACTION_DEFAULTS);

/**
 * The ingestion pipeline of one process: pg-boss on PostgreSQL (workers in any number of
 * processes), or the in-process queue on the embedded database.
 */
export function createIngestion(
  orm: MikroORM,
  config: Pick<AppConfig, 'databaseUrl' | 'extraction' | 'extractionConcurrency' | 'jobHeartbeatSeconds'>,
  log: FastifyBaseLogger,
  opts: {
    consume?: boolean;
    extractor?: Extractor;
    jobTiming?: Partial<JobTiming>;
    reconcileIntervalMs?: number;
  } = {},
): Ingestion {
  const consume = opts.consume ?? true;
  // EXTRACTION_CONCURRENCY extractions at a time per process, each in an extractor process of its
  // own, and one job slot more: a job claimed ahead, its PDF read, waits for the first extractor to
  // free up, instead of every extractor waiting for the queue's hand-off after each document (the
  // job's completion, the next fetch and claim take about as long as a one-page PDF's
  // extraction; the ingestion section of `npm run bench` shows the gain on the realistic corpus).
  const jobSlots = config.extractionConcurrency + 1;
  const queue: ExtractionQueue = config.databaseUrl
    ? new PgBossQueue(config.databaseUrl, {
        consume,
        concurrency: jobSlots,
        log,
        // The supervisor looks twice per heartbeat period (JOB_HEARTBEAT_SECONDS, src/ingestion/queue.ts).
        timing: {
          heartbeatSeconds: config.jobHeartbeatSeconds,
          superviseSeconds: Math.max(1, Math.round(config.jobHeartbeatSeconds / 2)),
          ...opts.jobTiming,
        },
      })
    : new InProcessQueue({ concurrency: jobSlots });
  measured = queue;
  const extractor = opts.extractor ?? extractorFor(config.extraction, config.extractionConcurrency);
  let reconciler: NodeJS.Timeout | null = null;
  const reconcile = async () => {
    const orphans = await queue.withoutLiveJob(await unfinishedExtractions(orm.em.fork()));
    for (const id of orphans) await queue.enqueue(id);
    if (orphans.length) log.info({ extractionIds: orphans }, 'queued extractions that had no live job');
    return orphans.length;
  };
  return {
    queue,
    reconcile,
    upload: (em, input, maxBytes) => uploadAndQueue(em, queue, input, maxBytes),
    async startWorker() {
      await queue.start(async (extractionId) => {
        const started = Date.now();
        const counted = (outcome: string) => {
          extractions.inc({ outcome });
          extractionDuration.observe({ outcome }, (Date.now() - started) / 1000);
        };
        try {
          const status = await processExtraction(orm.em.fork(), extractionId, extractor);
          log.info({ extractionId, status, ms: Date.now() - started }, 'extraction finished');
          counted(String(status));
        } catch (err) {
          log.warn({ err, extractionId }, 'extraction attempt failed; it will be retried');
          counted('retry');
          throw err;
        }
      });
      // At start (the embedded queue lives in memory: this re-delivers what a previous run left) and
      // then periodically; a pass that fails (database away) is simply tried again next time.
      const pass = () =>
        reconcile().catch((err: unknown) => log.debug({ err }, 'reconciliation pass failed; retrying later'));
      await pass();
      reconciler = setInterval(() => void pass(), opts.reconcileIntervalMs ?? RECONCILE_INTERVAL_MS);
      reconciler.unref();
    },
    async stop() {
      if (reconciler) clearInterval(reconciler);
      await queue.stop();
      await closeExtractors();
    },
  };
}
