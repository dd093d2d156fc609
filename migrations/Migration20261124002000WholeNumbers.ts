import { Migration } from '@mikro-orm/migrations';
import { searchVectorLiteral } from '../src/search/lexemes.js';
import { NORMALIZER_VERSION, normalizeText } from '../src/search/normalize.js';

/**
 * Normalizer 2: numbers are whole (`1,850` and `1 850` are `1850`; `2½` and `2 1/2` are
 * `2.5`) and a hyphen between words is a space (`soft-close` is `soft close`). Every stored chunk
 * is normalized again from its raw text and its search vector rebuilt, so old and new documents
 * answer the same query the same way.
 */
export class Migration20261124002000WholeNumbers extends Migration {
  override name = 'Migration20261124002000WholeNumbers';

  override async up(): Promise<void> {
    for (let after = 0; ;) {
      const rows = (await this.execute(`select id, raw_text from chunk where id > ? order by id limit 500`, [
        after,
      ])) as { id: number; raw_text: string }[];
      if (rows.length === 0) break;
      const updated = rows.map((r) => {
        const text = normalizeText(r.raw_text);
        return { id: r.id, text, vector: searchVectorLiteral(text) };
      });
      // One JSON parameter: the driver would spread a JS array into a list of parameters.
      await this.execute(
        `update chunk c set search_text = v.text, search_vector = v.vector::tsvector
           from json_to_recordset(?::json) as v(id int, text text, vector text) where c.id = v.id`,
        [JSON.stringify(updated)],
      );
      after = rows[rows.length - 1].id;
    }
    await this.execute(`update extraction set normalizer_version = ? where normalizer_version is not null`, [
      NORMALIZER_VERSION,
    ]);
  }

  override down(): void {
    // The old normalization cannot be recomputed here; `npm run reindex -- --all` rebuilds any version.
  }
}
