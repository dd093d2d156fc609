import type { EntityManager } from '@mikro-orm/postgresql';
import { nativePool, onConnection, type NativeClient } from '../../db/native.js';
import { metrics } from '../../metrics/metrics.js';
import { vocabularyOf } from './compounds.js';
import { searchVectorLiteral } from './lexemes.js';
import { NORMALIZER_VERSION, normalizeText } from './normalize.js';

/**
 * Re-derivation of stored search text. A chunk keeps its raw text; its normalized text (what the
 * post-filter reads), its search vector (what the pre-filter's index reads) and the index's
 * vocabulary are derived from it by the live normalizer. Each extraction records the
 * `normalizer_version` its chunks were derived with, so when the normalizer changes (a new
 * NORMALIZER_VERSION), every extraction with an older version is derived again here, one
 * extraction per transaction: the job can stop at any point and resume where it stopped, several
 * processes can share it (each takes an extraction no other holds), and a search sees each
 * document either wholly before or wholly after. Migrations never derive text (they would change
 * meaning whenever the normalizer does); a migration that needs text derived again marks the
 * extractions it affects with version 0.
 *
 * Runs in the background of every process that runs extraction jobs (src/app.ts) and from
 * `npm run search:rederive`, logging its progress; `/metrics` shows it
 * (`pds_search_rederive_remaining_extractions`, `pds_search_rederived_chunks`).
 */

export interface RederivationProgress {
  /** The version chunks are derived to. */
  normalizerVersion: number;
  /** Extractions still derived with an older version, when last counted. */
  remaining: number;
  /** Extractions derived again by this process since it started. */
  extractions: number;
  /** Chunks derived again by this process since it started. */
  chunks: number;
  /** Whether a pass is under way in this process. */
  running: boolean;
}

const progress: RederivationProgress = {
  normalizerVersion: NORMALIZER_VERSION,
  remaining: 0,
  extractions: 0,
  chunks: 0,
  running: false,
};

/** This process's re-derivation figures, for `/metrics` and the logs. */
export function rederivationProgress(): Readonly<RederivationProgress> {
  return { ...progress };
}

metrics.gauge(
  'pds_search_rederive_remaining_extractions',
  'Extractions whose search text awaits re-derivation under the current normalizer, as this process last counted',
  [],
  function () {
    this.set(progress.remaining);
  },
);
metrics.gauge(
  'pds_search_rederived_chunks',
  'Chunks whose search text this process derived again since it started',
  [],
  function () {
    this.set(progress.chunks);
  },
);

interface Log {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/** Chunks per update statement: the statement travels as one message. */
const CHUNKS_PER_STATEMENT = 200;

/** Extractions a pass logs its progress after, besides its start and end. */
const LOG_EVERY = 50;

/** How many extractions have chunks derived by an older normalizer. */
async function countStale(pool: NativeClient, version: number): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `select count(*)::int as n from extraction
      where status = 'completed' and coalesce(normalizer_version, 0) < $1`,
    [version],
  );
  return rows[0].n;
}

/**
 * Derives one stale extraction's chunks again, in one transaction; returns its chunk count, or
 * null when no stale extraction is left that another process does not hold.
 */
async function rederiveOne(pool: NativeClient, version: number): Promise<number | null> {
  return onConnection(pool, async (client) => {
    await client.query('begin');
    const { rows: picked } = await client.query<{ id: number }>(
      `select id from extraction
        where status = 'completed' and coalesce(normalizer_version, 0) < $1
        order by id limit 1 for update skip locked`,
      [version],
    );
    if (picked.length === 0) {
      await client.query('rollback');
      return null;
    }
    const extractionId = picked[0].id;
    const { rows: chunks } = await client.query<{ id: number; raw_text: string }>(
      'select id, raw_text from chunk where extraction_id = $1 order by id',
      [extractionId],
    );
    const texts: string[] = [];
    for (let i = 0; i < chunks.length; i += CHUNKS_PER_STATEMENT) {
      const derived = chunks.slice(i, i + CHUNKS_PER_STATEMENT).map((chunk) => {
        const text = normalizeText(chunk.raw_text);
        texts.push(text);
        return { id: chunk.id, text, vector: searchVectorLiteral(text) };
      });
      // One JSON parameter: the rows of the update, whatever their number.
      await client.query(
        `update chunk c set search_text = v.text, search_vector = v.vector::tsvector
           from json_to_recordset($1::json) as v(id int, text text, vector text) where c.id = v.id`,
        [JSON.stringify(derived)],
      );
    }
    await client.query(
      `insert into search_vocabulary (word) select distinct w from json_array_elements_text($1::json) w
        on conflict do nothing`,
      [JSON.stringify(vocabularyOf(texts))],
    );
    await client.query('update extraction set normalizer_version = $2 where id = $1', [
      extractionId,
      version,
    ]);
    await client.query('commit');
    return chunks.length;
  });
}

/**
 * Derives every stale extraction's chunks again, logging progress, until none is left (or `signal`
 * aborts: the extraction under way finishes first). Returns the extractions this pass derived.
 */
export async function rederiveSearchText(
  em: EntityManager,
  log: Log,
  opts: { signal?: AbortSignal; version?: number } = {},
): Promise<number> {
  const version = opts.version ?? NORMALIZER_VERSION;
  const pool = await nativePool(em);
  progress.normalizerVersion = version;
  progress.remaining = await countStale(pool, version);
  if (progress.remaining === 0) return 0;
  progress.running = true;
  const started = Date.now();
  log.info(
    { normalizerVersion: version, remaining: progress.remaining },
    'search text: deriving stored chunks again under the current normalizer',
  );
  let done = 0;
  try {
    while (!opts.signal?.aborted) {
      const chunks = await rederiveOne(pool, version);
      if (chunks === null) break;
      done++;
      progress.extractions++;
      progress.chunks += chunks;
      progress.remaining = Math.max(0, progress.remaining - 1);
      if (done % LOG_EVERY === 0) {
        log.info(
          { normalizerVersion: version, extractions: done, remaining: progress.remaining },
          'search text: derivation in progress',
        );
      }
    }
    progress.remaining = await countStale(pool, version);
  } finally {
    progress.running = false;
  }
  log.info(
    {
      normalizerVersion: version,
      extractions: done,
      remaining: progress.remaining,
      ms: Date.now() - started,
    },
    progress.remaining === 0 ? 'search text: every chunk is current' : 'search text: derivation stopped',
  );
  return done;
}

/**
 * Starts `rederiveSearchText` in the background; a pass that fails (the database away) is logged
 * and tried again after `retryMs`. `stop` ends it after the extraction under way.
 */
export function startRederivation(
  em: EntityManager,
  log: Log,
  retryMs = 30_000,
): { stop(): Promise<void>; done: Promise<void> } {
  const abort = new AbortController();
  let timer: NodeJS.Timeout | null = null;
  const done = (async () => {
    while (!abort.signal.aborted) {
      try {
        await rederiveSearchText(em, log, { signal: abort.signal });
        return;
      } catch (err) {
        if (abort.signal.aborted) return;
        log.warn({ err }, 'search text: derivation pass failed; trying again later');
        await new Promise<void>((resolve) => {
          timer = setTimeout(resolve, retryMs);
          timer.unref();
          abort.signal.addEventListener('abort', () => resolve(), { once: true });
        });
      }
    }
  })();
  return {
    done,
    async stop() {
      abort.abort();
      if (timer) clearTimeout(timer);
      await done;
    },
  };
}
