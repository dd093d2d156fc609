import type { FastifyBaseLogger } from 'fastify';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { AppConfig } from '../config.js';
import { closeExtractors, extractPdf } from './extract.js';
import { processExtraction, unfinishedExtractions, type Extractor } from './ingest.service.js';
import { InProcessQueue, PgBossQueue, type ExtractionQueue } from './queue.js';

export interface Ingestion {
  queue: ExtractionQueue;
  /** Starts consuming extraction jobs in this process. */
  startWorker(): Promise<void>;
  stop(): Promise<void>;
}

export const EXTRACTION_TIMEOUT_MS = 60_000;
export const EXTRACTION_MEMORY_MB = 512;
export const EXTRACTION_CONCURRENCY = 2;

export const defaultExtractor: Extractor = (bytes) =>
  extractPdf(bytes, { timeoutMs: EXTRACTION_TIMEOUT_MS, maxMemoryMb: EXTRACTION_MEMORY_MB });

/**
 * The ingestion pipeline of one process: pg-boss on PostgreSQL (workers in any number of
 * processes), or the in-process queue on the embedded database.
 */
export function createIngestion(
  orm: MikroORM,
  config: Pick<AppConfig, 'databaseUrl'>,
  log: FastifyBaseLogger,
  opts: { consume?: boolean; extractor?: Extractor } = {},
): Ingestion {
  const consume = opts.consume ?? true;
  // Two jobs at a time per process: the extractor pool runs two worker threads (one per core here).
  const queue: ExtractionQueue = config.databaseUrl
    ? new PgBossQueue(config.databaseUrl, { consume, concurrency: EXTRACTION_CONCURRENCY })
    : new InProcessQueue({ concurrency: EXTRACTION_CONCURRENCY });
  const extractor = opts.extractor ?? defaultExtractor;
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
