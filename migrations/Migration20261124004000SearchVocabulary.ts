import { Migration } from '@mikro-orm/migrations';

/**
 * The words the index uses (letters only), so a query word is split into two only where the
 * documents could spell it that way (src/search/text/compounds.ts). Ingestion adds the words of each new
 * chunk; the words of chunks stored before are added by re-deriving their search text, for which
 * their extractions are marked here (normalizer version 0; src/search/text/rederive.ts). Words are never
 * removed: a word left over from a deleted chunk only lets one more spelling be tried, and the
 * answer stays exact.
 */
export class Migration20261124004000SearchVocabulary extends Migration {
  override name = 'Migration20261124004000SearchVocabulary';

  override up(): void {
    this.addSql(`create table "search_vocabulary" ("word" text primary key)`);
    this.addSql(`update extraction set normalizer_version = 0 where status = 'completed'`);
  }

  override down(): void {
    this.addSql(`drop table if exists "search_vocabulary"`);
  }
}
