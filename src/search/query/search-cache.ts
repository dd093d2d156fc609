import { LRUCache } from 'lru-cache';
import { isLater, type Generations } from '../../db/generation.js';

/**
 * Search answers kept on each node and given again, exactly, while nothing they were read from has
 * changed. A search's first round trip reads the generations (src/db/generation.ts, with `search`
 * from migrations/Migration20261125183000SearchGeneration.ts) in the same snapshot as the rest of
 * the search: an answer stored under `search` and `catalogue` is exactly what that snapshot holds,
 * and it serves any later search that reads the same numbers, among them a request's own
 * generations, read once per request after it arrived: a kept answer then costs no round trip.
 * Triggers bump `search` in the transaction that changes a chunk, a document, an extraction's
 * status or the vocabulary, and `catalogue` for a project's name, so a change committed anywhere
 * (an upload on another node, a re-index, psql) ends every answer kept before it on every node,
 * at the next search.
 *
 * Common terms are what buyers ask about, and an answer for one costs hundreds of milliseconds at
 * 1M chunks; the same answer costs nothing more than the request's generation read while the
 * corpus is unchanged.
 */

/**
 * The most answers kept per database pool (SEARCH_CACHE_ENTRIES; 0 keeps none): one answer is at
 * most 25 hits' excerpts (~10 kB). Set for the process by the app at start (configureSearchCache).
 */
let capacity = 500;
/** Bumped by configureSearchCache: every cache empties itself at its next use. */
let epoch = 0;

/** How many answers each pool's cache keeps from now on (0: none); what was kept is dropped. */
export function configureSearchCache(entries: number): void {
  capacity = entries;
  epoch++;
}

/** Drops every kept answer (the bench measures searches that find none). */
export function forgetSearchAnswers(): void {
  epoch++;
}

/** The generations an answer depends on (tagged with their database: src/db/generation.ts). */
type AnswerGenerations = Pick<Generations, 'search' | 'catalogue'>;

/** Whether `a` is later than `b` in either counter (both only ever grow). */
function later(a: AnswerGenerations, b: AnswerGenerations): boolean {
  return isLater(a.search, b.search) || isLater(a.catalogue, b.catalogue);
}

/**
 * The answers kept under one pair of generations, least recently used dropped first (`lru-cache`,
 * at most `capacity` answers). The generation tagging is ours: a newer generation empties it.
 */
class SearchCache {
  private generation: AnswerGenerations | null = null;
  private entries: LRUCache<string, object> | null = null;
  private epoch = -1;

  get(generation: AnswerGenerations, key: string): unknown {
    return this.same(generation) ? this.kept().get(key) : undefined;
  }

  set(generation: AnswerGenerations, key: string, value: unknown): void {
    if (!this.same(generation)) {
      // An answer from an older snapshot than the cache's (a search that began before a commit
      // another search has already seen) is not kept; a newer one starts the cache afresh.
      if (this.generation && !later(generation, this.generation)) return;
      this.generation = generation;
      this.kept().clear();
    }
    if (capacity > 0) this.kept().set(key, value as object);
  }

  /** The entries, made afresh (empty, at the capacity now configured) after configureSearchCache. */
  private kept(): LRUCache<string, object> {
    if (this.epoch !== epoch || !this.entries) {
      this.epoch = epoch;
      this.entries = new LRUCache<string, object>({ max: Math.max(1, capacity) });
    }
    return this.entries;
  }

  private same(generation: AnswerGenerations): boolean {
    return (
      this.generation !== null &&
      this.generation.search === generation.search &&
      this.generation.catalogue === generation.catalogue
    );
  }
}

/** One answer cache and one spelling cache per database: keyed by its primary's pool. */
const caches = new WeakMap<object, { answers: SearchCache; spellings: SpellingCache }>();
const counts = { hits: 0, misses: 0 };

/** Searches answered from the cache and not, since the process started (for tests and operators). */
export function searchCacheCounts(): { hits: number; misses: number } {
  return { ...counts };
}

function cachesOf(pool: object): { answers: SearchCache; spellings: SpellingCache } {
  let cache = caches.get(pool);
  if (!cache) {
    cache = { answers: new SearchCache(), spellings: new SpellingCache() };
    caches.set(pool, cache);
  }
  return cache;
}

/**
 * The answer kept for `key` under `generation` in the cache of `pool` (the primary's: an answer
 * read on a replica at the same generations is the same answer), or undefined. The caller treats
 * answers as read-only: the same object may go to several requests.
 */
export function keptAnswer(pool: object, generation: AnswerGenerations, key: string): unknown {
  const kept = cachesOf(pool).answers.get(generation, key);
  if (kept !== undefined) counts.hits++;
  return kept;
}

/** Keeps `answer`, read in a snapshot whose generations were `generation`. */
export function keepAnswer(pool: object, generation: AnswerGenerations, key: string, answer: unknown): void {
  counts.misses++;
  cachesOf(pool).answers.set(generation, key, answer);
}

/** The most vocabulary words whose presence is remembered per database before starting afresh. */
const MAX_SPELLING_WORDS = 10_000;

/**
 * What the index's vocabulary (`search_vocabulary`) says of the words a search looked up for
 * compound spellings (src/search/query/spellings.ts), under one `search` generation: the vocabulary is
 * a function of that generation (its triggers bump it), so a word's presence learned in a snapshot
 * at generation G holds in any snapshot at G, on the primary or a replica alike.
 */
class SpellingCache {
  private generation = '';
  private readonly words = new Map<string, boolean>();

  /** The present ones among `candidates` under `generation`, or undefined when any is not known. */
  known(generation: string, candidates: readonly string[]): Set<string> | undefined {
    if (generation !== this.generation) return undefined;
    const present = new Set<string>();
    for (const word of candidates) {
      const has = this.words.get(word);
      if (has === undefined) return undefined;
      if (has) present.add(word);
    }
    return present;
  }

  learn(generation: string, candidates: readonly string[], present: ReadonlySet<string>): void {
    if (generation !== this.generation) {
      if (this.generation && !isLater(generation, this.generation)) return;
      this.generation = generation;
      this.words.clear();
    }
    if (this.words.size + candidates.length > MAX_SPELLING_WORDS) this.words.clear();
    for (const word of candidates) this.words.set(word, present.has(word));
  }
}

/**
 * Which of `candidates` the vocabulary holds at search generation `generation`, as learned by an
 * earlier search of the database whose primary's pool is `pool`; undefined when not all are known.
 */
export function knownSpellings(
  pool: object,
  generation: string,
  candidates: readonly string[],
): Set<string> | undefined {
  return cachesOf(pool).spellings.known(generation, candidates);
}

/** Remembers what a snapshot at `generation` said of `candidates`: `present` are in the vocabulary. */
export function learnSpellings(
  pool: object,
  generation: string,
  candidates: readonly string[],
  present: ReadonlySet<string>,
): void {
  cachesOf(pool).spellings.learn(generation, candidates, present);
}
