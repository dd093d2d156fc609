import type { EntityManager } from '@mikro-orm/postgresql';
import { nativePool, onConnection } from './native.js';

/** Which index answers `search_vector @@ query` (SEARCH_INDEX). */
export type SearchIndexKind = 'gin' | 'rum';

const INDEX: Record<SearchIndexKind, { name: string; create: string }> = {
  gin: {
    name: 'chunk_search_vector_gin',
    create: 'create index if not exists "chunk_search_vector_gin" on "chunk" using gin ("search_vector")',
  },
  rum: {
    name: 'chunk_search_vector_rum',
    create:
      'create index if not exists "chunk_search_vector_rum" on "chunk" using rum ("search_vector" rum_tsvector_ops)',
  },
};

/** Serializes the switch between app nodes starting at once (any fixed 64-bit key of ours). */
const LOCK_KEY = 7_317_405_512_017;

export class SearchIndexError extends Error {}

/**
 * Puts the chunk table's search index on the path `kind` names, after the migrations.
 *
 * GIN (the migrations' index, the default, and the only one PGlite has) stores no positions: every
 * candidate of a phrase is rechecked against its row. RUM (the `rum` extension, Debian
 * `postgresql-15-rum`) stores them and answers a phrase in the index, but reads every position of
 * every word of the phrase to do it: at 1M chunks it was 4.3× slower than GIN for a phrase of
 * common words in 1% of the chunks and 4-8% faster for one in 5% (docs/benchmarks.md), so it is
 * an option, not the default. The other index is dropped so that the planner has one choice and
 * ingestion maintains one index. Switching builds the new index in one transaction (15-30 s at 1M
 * chunks; writes to `chunk` wait meanwhile); an unchanged choice costs one catalogue query. Both
 * paths answer the same: the pre-filter is exact either way, and rank is `ts_rank` on the row's
 * vector on both.
 */
export async function ensureSearchIndex(
  em: EntityManager,
  kind: SearchIndexKind,
  embedded: boolean,
): Promise<SearchIndexKind> {
  if (embedded) {
    if (kind === 'rum')
      throw new SearchIndexError('SEARCH_INDEX=rum needs PostgreSQL with the rum extension');
    return 'gin';
  }
  const pool = await nativePool(em);
  return onConnection(pool, async (client) => {
    await client.query('begin');
    await client.query('select pg_advisory_xact_lock($1)', [LOCK_KEY]);
    const { rows } = await client.query<{ available: boolean; present: string[] }>(
      `select exists (select 1 from pg_available_extensions where name = 'rum') as available,
                array(select indexname::text from pg_indexes
                       where schemaname = current_schema() and tablename = 'chunk'
                         and indexname in ($1, $2)) as present`,
      [INDEX.gin.name, INDEX.rum.name],
    );
    const { available, present } = rows[0];
    if (present.length === 1 && present[0] === INDEX[kind].name) {
      await client.query('commit');
      return kind;
    }
    if (kind === 'rum') {
      if (!available) {
        throw new SearchIndexError(
          'SEARCH_INDEX=rum but the server has no rum extension (Debian: apt-get install postgresql-15-rum)',
        );
      }
      await client.query('create extension if not exists rum');
    }
    await client.query(INDEX[kind].create);
    await client.query(`drop index if exists "${INDEX[kind === 'gin' ? 'rum' : 'gin'].name}"`);
    await client.query('commit');
    return kind;
  });
}
