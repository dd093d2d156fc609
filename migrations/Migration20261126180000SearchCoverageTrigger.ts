import { Migration } from '@mikro-orm/migrations';

/**
 * A search answer reads an extraction's status only as its coverage class (src/search/search.service.ts
 * `coverageSql`): 'completed'; 'no_text' or 'failed'; anything else (pending, processing). So an
 * update that leaves the class and the document as they were changes no answer, and no longer bumps
 * the `search` generation: a worker's claim (pending → processing, once per document) used to end
 * every kept answer and take the generation's row lock once more per document, beside the upload
 * and the commit. Inserts and deletes still bump, as before. The classes here and in `coverageSql`
 * must agree: test/integration/search/search-cache.test.ts tries every change of status.
 */
const COVERAGE_CLASS = (row: 'old' | 'new') =>
  `case ${row}.status when 'completed' then 1 when 'no_text' then 2 when 'failed' then 2 else 0 end`;

export class Migration20261126180000SearchCoverageTrigger extends Migration {
  override name = 'Migration20261126180000SearchCoverageTrigger';

  override up(): void {
    this.addSql(`drop trigger if exists "extraction_search_generation" on "extraction"`);
    this.addSql(
      `create constraint trigger "extraction_search_generation"
         after insert or delete on "extraction"
         deferrable initially deferred for each row execute function bump_cache_generation('search')`,
    );
    this.addSql(
      `create constraint trigger "extraction_search_generation_update"
         after update of status, document_id on "extraction"
         deferrable initially deferred for each row
         when (old.document_id is distinct from new.document_id
               or (${COVERAGE_CLASS('old')}) is distinct from (${COVERAGE_CLASS('new')}))
         execute function bump_cache_generation('search')`,
    );
  }

  override down(): void {
    this.addSql(`drop trigger if exists "extraction_search_generation_update" on "extraction"`);
    this.addSql(`drop trigger if exists "extraction_search_generation" on "extraction"`);
    this.addSql(
      `create constraint trigger "extraction_search_generation"
         after insert or delete or update of status, document_id on "extraction"
         deferrable initially deferred for each row execute function bump_cache_generation('search')`,
    );
  }
}
