import { Migration } from '@mikro-orm/migrations';
import { vocabularyOf } from '../src/search/compounds.js';

/**
 * The words the index uses (letters only), so a query word is split into two only where the
 * documents could spell it that way (src/search/compounds.ts). Filled from every stored chunk;
 * ingestion adds the words of each new chunk. Words are never removed: a word left over from a
 * deleted chunk only lets one more spelling be tried, and the answer stays exact.
 */
export class Migration20261124004000SearchVocabulary extends Migration {
  override name = 'Migration20261124004000SearchVocabulary';

  override async up(): Promise<void> {
    await this.execute(`create table "search_vocabulary" ("word" text primary key)`);
    for (let after = 0; ;) {
      const rows = (await this.execute(
        `select id, search_text from chunk where id > ? order by id limit 1000`,
        [after],
      )) as { id: number; search_text: string }[];
      if (rows.length === 0) break;
      await this.execute(
        `insert into search_vocabulary (word) select distinct w from json_array_elements_text(?::json) w
           on conflict do nothing`,
        [JSON.stringify(vocabularyOf(rows.map((r) => r.search_text)))],
      );
      after = rows[rows.length - 1].id;
    }
  }

  override down(): void {
    this.addSql(`drop table if exists "search_vocabulary"`);
  }
}
