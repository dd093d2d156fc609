import { Migration } from '@mikro-orm/migrations';

/**
 * Normalizer 2: numbers are whole and a hyphen between words is a space. Every stored chunk's
 * search text must be derived again from its raw text: its extraction is marked for re-derivation
 * (normalizer version 0), which the background job does with the normalizer of its day
 * (src/search/text/rederive.ts), so old and new documents answer the same query the same way.
 */
export class Migration20261124002000WholeNumbers extends Migration {
  override name = 'Migration20261124002000WholeNumbers';

  override up(): void {
    this.addSql(`update extraction set normalizer_version = 0 where status = 'completed'`);
  }

  override down(): void {
    // Nothing to undo: re-derivation writes whatever normalizer is current.
  }
}
