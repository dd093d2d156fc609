import { Migration } from '@mikro-orm/migrations';

/**
 * A chunk's `search_vector` (about 1.2 kB) stays in the chunk's row instead of in the TOAST table.
 * The row is over PostgreSQL's 2 kB toasting threshold with its two texts, and the largest value,
 * the vector, was the one moved out: every match a search rechecks and ranks then cost a TOAST
 * index lookup and two more page reads. With `STORAGE MAIN` the vector is compressed if needed and
 * kept inline; the texts, read only for the hits shown, move out first. At 1M chunks this cut the
 * scan of a global search of a phrase in 5% of them by about half (the search section of
 * `npm run bench`).
 *
 * New rows get the new layout. Rows written before keep theirs until rewritten: `npm run reindex --
 * --all` (new extractions) or `VACUUM FULL chunk` in a maintenance window.
 */
export class Migration20261124194000InlineSearchVector extends Migration {
  override up(): void {
    this.addSql(`alter table "chunk" alter column "search_vector" set storage main;`);
  }

  override down(): void {
    this.addSql(`alter table "chunk" alter column "search_vector" set storage extended;`);
  }
}
