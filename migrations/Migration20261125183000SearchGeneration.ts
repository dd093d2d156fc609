import { Migration } from '@mikro-orm/migrations';

/**
 * A third generation, `search`: it counts the committed changes to what a Document Intelligence
 * search answers from (chunks, documents, extractions, the index's vocabulary), so that a node can
 * keep an answer and give it again, exactly, while the number has not moved
 * (src/search/query/search-cache.ts). Project names come in through `catalogue`, which the cache key
 * holds too. Same triggers as Migration20261124180000CacheGeneration: deferred to commit, one bump
 * per transaction, so a reader that sees the new number also sees the change, whoever wrote it.
 * A bulk write queues one trigger event per row until its commit (COPY of 1M chunks: a few
 * seconds and some tens of MB, once).
 */
const SEARCH_TRIGGERS: [table: string, columns: string | null][] = [
  ['chunk', null],
  ['document', null],
  // The answer reads an extraction's status (coverage) and nothing else of it: a worker's other
  // writes to it (attempts, errors, counts) move nothing.
  ['extraction', 'status, document_id'],
  ['search_vocabulary', null],
];

export class Migration20261125183000SearchGeneration extends Migration {
  override name = 'Migration20261125183000SearchGeneration';

  override up(): void {
    this.addSql(`alter table "cache_generation" add column "search" bigint not null default 0`);
    this.addSql(`create or replace function bump_cache_generation() returns trigger language plpgsql as $$
      begin
        if current_setting('pds.cache_bumped_' || tg_argv[0], true) is distinct from 'y' then
          perform set_config('pds.cache_bumped_' || tg_argv[0], 'y', true);
          if tg_argv[0] = 'auth' then
            update cache_generation set auth = auth + 1 where id = 1;
          elsif tg_argv[0] = 'search' then
            update cache_generation set search = search + 1 where id = 1;
          else
            update cache_generation set catalogue = catalogue + 1 where id = 1;
          end if;
        end if;
        return null;
      end $$`);
    for (const [table, columns] of SEARCH_TRIGGERS) {
      this.addSql(
        `create constraint trigger "${table}_search_generation"
           after insert or delete or update${columns ? ` of ${columns}` : ''} on "${table}"
           deferrable initially deferred for each row execute function bump_cache_generation('search')`,
      );
      this.addSql(
        `create trigger "${table}_search_generation_truncate" after truncate on "${table}"
           for each statement execute function bump_cache_generation('search')`,
      );
    }
  }

  override down(): void {
    for (const [table] of SEARCH_TRIGGERS) {
      this.addSql(`drop trigger if exists "${table}_search_generation" on "${table}"`);
      this.addSql(`drop trigger if exists "${table}_search_generation_truncate" on "${table}"`);
    }
    this.addSql(`alter table "cache_generation" drop column if exists "search"`);
  }
}
