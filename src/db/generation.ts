import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The cache generations (table `cache_generation`, bumped by triggers in the writing transaction:
 * migrations/Migration20261124180000CacheGeneration.ts). A value cached under the generation read
 * for a request is exactly what the database holds for that request, on every node: whoever commits
 * a change to a credential or to the catalogue bumps the number in the same commit.
 *
 * The number is read once per request, but requests share reads: a caller waits for a read that
 * PostgreSQL starts after the call, never one already under way (whose snapshot may predate a
 * commit the caller has seen acknowledged), so a revocation or a catalogue change committed before
 * a request arrived is seen by that request. Under load one round trip answers every request that
 * arrived while the previous one ran.
 */
export interface Generations {
  /** Keys, tokens, teams, users, memberships. */
  auth: string;
  /** Developers, projects, buildings, floor plans. */
  catalogue: string;
  /** Chunks, documents, extractions' status, the search vocabulary (src/search/query/search-cache.ts). */
  search: string;
}

export interface GenerationRow {
  auth_generation: string;
  catalogue_generation: string;
  search_generation: string;
}

interface Pool {
  query: (statement: { name: string; text: string }) => Promise<{ rows: unknown[] }>;
}

/** The columns of a statement that reads the generations along with its rows, in its snapshot. */
export const GENERATION_COLUMNS = `(select auth::text from cache_generation where id = 1) as auth_generation,
  (select catalogue::text from cache_generation where id = 1) as catalogue_generation,
  (select search::text from cache_generation where id = 1) as search_generation`;

/**
 * The generation read as a named statement: every request makes it (or shares one), and named, it
 * is parsed and planned once per connection instead of on every read.
 */
const READ_GENERATIONS = { name: 'pds_read_generations', text: `select ${GENERATION_COLUMNS}` };

let databases = 0;

class GenerationReader {
  private running: Promise<Generations> | null = null;
  private queued: Promise<Generations> | null = null;
  /**
   * Generations are tagged with the database they count (a process may serve several: tests,
   * the bench), so that a number from one database never vouches for another's cached values.
   */
  private readonly database = ++databases;

  constructor(private readonly pool: Pool) {}

  tag(row: GenerationRow): Generations {
    return {
      auth: `${this.database}:${row.auth_generation}`,
      catalogue: `${this.database}:${row.catalogue_generation}`,
      search: `${this.database}:${row.search_generation}`,
    };
  }

  /** Generations read by a statement started after this call. */
  current(): Promise<Generations> {
    if (!this.running) return this.start();
    // The read under way may have taken its snapshot before this caller arrived: wait for the next.
    this.queued ??= this.running.then(
      () => this.startQueued(),
      () => this.startQueued(),
    );
    return this.queued;
  }

  private startQueued(): Promise<Generations> {
    this.queued = null;
    return this.start();
  }

  private start(): Promise<Generations> {
    const read = this.pool.query(READ_GENERATIONS).then(({ rows }) => {
      const row = rows[0] as GenerationRow;
      if (row.auth_generation === null) throw new Error('cache_generation has no row: run the migrations');
      return this.tag(row);
    });
    this.running = read;
    const clear = () => {
      if (this.running === read) this.running = null;
    };
    read.then(clear, clear);
    return read;
  }
}

const readers = new WeakMap<object, GenerationReader>();
/** Per request: the request's EntityManager fork reads the generations once, for every cache it uses. */
const perRequest = new WeakMap<EntityManager, Promise<Generations>>();

async function readerFor(em: EntityManager): Promise<GenerationReader> {
  const pool = (await em.getConnection('write').getNativeClient()) as Pool;
  let reader = readers.get(pool);
  if (!reader) {
    reader = new GenerationReader(pool);
    readers.set(pool, reader);
  }
  return reader;
}

/**
 * For the request that owns `em`: generations a statement of its own read (GENERATION_COLUMNS)
 * after the request arrived, kept for its other lookups; returns them tagged.
 */
export function noteGenerations(em: EntityManager, row: GenerationRow): Promise<Generations> {
  const tagged = readerFor(em).then((reader) => reader.tag(row));
  if (!perRequest.has(em)) perRequest.set(em, tagged);
  return tagged;
}

/**
 * The generations for the request that owns `em` (its fork: src/context/context.ts): read once, after
 * the request arrived, and shared by everything the request looks up in a cache.
 */
export function generationsFor(em: EntityManager): Promise<Generations> {
  const known = perRequest.get(em);
  if (known) return known;
  const pending = readerFor(em).then((reader) => reader.current());
  perRequest.set(em, pending);
  // A failed read is not remembered: the next lookup in the same request tries again.
  pending.catch(() => perRequest.delete(em));
  return pending;
}

/**
 * Whether generation `a` is later than `b`: the counters compared as numbers (decimal strings of a
 * bigint) when both count the same database; one of another database always counts as later.
 */
export function isLater(a: string, b: string): boolean {
  // The usual case (every cache lookup of a request compares the generation it was filled under):
  // no split.
  if (a === b) return false;
  const [da, na] = a.split(':');
  const [db, nb] = b.split(':');
  if (da !== db) return true;
  return na.length !== nb.length ? na.length > nb.length : na > nb;
}

/**
 * Values that rarely change, cached by generation. An entry is kept only when it was read under the
 * latest generation seen, so it holds at least that generation's state, and it serves any request
 * whose generation is not later; a request with a later generation starts the cache afresh.
 * Bounded: past `maxEntries` the cache starts afresh too.
 */
export class GenerationCache<K, V> {
  private generation = '';
  private readonly entries = new Map<K, V>();

  constructor(private readonly maxEntries = 10_000) {}

  private advance(generation: string): void {
    if (isLater(generation, this.generation)) {
      this.entries.clear();
      this.generation = generation;
    }
  }

  get(generation: string, key: K): V | undefined {
    this.advance(generation);
    return this.entries.get(key);
  }

  /** `value` must have been read after `generation` was. */
  set(generation: string, key: K, value: V): void {
    this.advance(generation);
    if (generation !== this.generation) return;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, value);
  }
}
