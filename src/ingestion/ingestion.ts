import type { FastifyBaseLogger } from 'fastify';
import type { MikroORM } from '@mikro-orm/postgresql';
import { EXTRACTION_DEFAULTS, type AppConfig, type ExtractionConfig } from '../config.js';
import { closeExtractors, extractPdf } from './extract.js';
import { processExtraction, unfinishedExtractions, type Extractor } from './ingest.service.js';
import { InProcessQueue, PgBossQueue, type ExtractionQueue } from './queue.js';

export interface Ingestion {
  queue: ExtractionQueue;
  /** Starts consuming extraction jobs in this process. */
  startWorker(): Promise<void>;
  stop(): Promise<void>;
}

export const EXTRACTION_CONCURRENCY = 2;

/** Extraction in a memory-limited child process that also normalizes and chunks (see extract.ts). */
export function extractorFor(limits: ExtractionConfig): Extractor {
  return (bytes) => extractPdf(bytes, { ...limits, chunk: true });
}

export const defaultExtractor: Extractor = extractorFor(EXTRACTION_DEFAULTS);

/**
 * The ingestion pipeline of one process: pg-boss on PostgreSQL (workers in any number of
 * processes), or the in-process queue on the embedded database.
 */
export function createIngestion(
  orm: MikroORM,
  config: Pick<AppConfig, 'databaseUrl' | 'extraction'>,
  log: FastifyBaseLogger,
  opts: { consume?: boolean; extractor?: Extractor } = {},
): Ingestion {
  const consume = opts.consume ?? true;
  // Two jobs at a time per process: the extractor pool runs two extractor processes (one per core here).
  const queue: ExtractionQueue = config.databaseUrl
    ? new PgBossQueue(config.databaseUrl, { consume, concurrency: EXTRACTION_CONCURRENCY })
    : new InProcessQueue({ concurrency: EXTRACTION_CONCURRENCY });
  const extractor = opts.extractor ?? extractorFor(config.extraction);
  return {
    queue,
    async startWorker() {
      await queue.start(async (extractionId) => {
        const started = Date.now();
        try {
          const status = await processExtraction(orm.em.fork(), extractionId, extractor);
          log.info({ extractionId, status, ms: Date.now() - started }, 'extraction finished');
        } catch (err) {
          log.warn({ err, extractionId }, 'extraction attempt failed; it will be retried');
          throw err;
        }
      });
      if (!config.databaseUrl) {
        // The embedded queue lives in memory: re-deliver whatever a previous run left unfinished.
        for (const id of await unfinishedExtractions(orm.em.fork())) await queue.enqueue(id);
      }
    },
    async stop() {
      await queue.stop();
      await closeExtractors();
    },
  };
}
