import { Migration } from '@mikro-orm/migrations';

/**
 * The change feed's outbox. Triggers write an event in the writing transaction itself, so a
 * committed change always has its event and a rolled-back one never does, whoever wrote it (the
 * app, a worker, a CLI, psql).
 *
 * Each event records the transaction that wrote it (`tx`, a never-wrapping xid8). A reader pages by
 * (tx, id) and reads only events of transactions older than every transaction still running
 * (`pg_snapshot_xmin`), so an event can never appear behind a cursor already handed out: ids come
 * from a sequence in insert order, not commit order, and paging by id alone would skip an event
 * whose transaction committed after a later one's.
 *
 * The SQL here is fixed text: it does not change when the application's code does.
 */
export const TRACKED = {
  project: [
    'name',
    'construction_status',
    'sales_status',
    'occupancy_date',
    'price_min',
    'price_max',
    'total_units',
    'storeys',
  ],
  building: ['name', 'addresses', 'aliases', 'mls_building_key', 'condo_corp_number'],
  floor_plan: [
    'name',
    'model',
    'bedrooms',
    'dens',
    'bathrooms',
    'interior_sqft',
    'exterior_sqft',
    'exposure',
    'floor_min',
    'floor_max',
    'start_price',
  ],
};

/** jsonb of the tracked fields: `{field: value}` of one row. */
const fieldsOf = (row: 'new' | 'old', fields: string[]) =>
  `jsonb_build_object(${fields.map((f) => `'${f}', ${row}."${f}"`).join(', ')})`;

/**
 * The body (from `returns`) of a tracked table's trigger function: `changes` of the tracked fields
 * through change_event_fields. Exported for the migration that replaces it to restore it on `down`.
 */
export const trackedFunctionBody = (table: string, fields: string[]) => {
  const project = table === 'project' ? 'new.id' : 'new.project_id';
  return `returns trigger language plpgsql as $$
        declare
          diff jsonb;
        begin
          if tg_op = 'INSERT' then
            diff := change_event_fields(null, ${fieldsOf('new', fields)});
            insert into change_event (type, subject_type, subject_id, project_id, changes)
              values ('${table}.created', '${table}', new.id, ${project}, diff);
          else
            diff := change_event_fields(${fieldsOf('old', fields)}, ${fieldsOf('new', fields)});
            if diff <> '{}'::jsonb then
              insert into change_event (type, subject_type, subject_id, project_id, changes)
                values ('${table}.changed', '${table}', new.id, ${project}, diff);
            end if;
          end if;
          return null;
        end $$`;
};

/** The body (from `returns`) of the document trigger function, exported as trackedFunctionBody is. */
export const DOCUMENT_FUNCTION_BODY = `returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          insert into change_event (type, subject_type, subject_id, project_id, changes)
            values ('document.published', 'document', new.id, new.project_id,
                    change_event_fields(null, jsonb_build_object('name', new.name, 'category', new.category,
                      'type', new.type, 'supersedes_id', new.supersedes_id)));
        elsif old.is_latest and not new.is_latest then
          insert into change_event (type, subject_type, subject_id, project_id, changes)
            values ('document.superseded', 'document', new.id, new.project_id,
                    change_event_fields(jsonb_build_object('is_latest', true), jsonb_build_object('is_latest', false)));
        end if;
        return null;
      end $$`;

export class Migration20261128000000ChangeEvents extends Migration {
  override name = 'Migration20261128000000ChangeEvents';

  override up(): void {
    this.addSql(`create table "change_event" (
      "id" bigserial primary key,
      "tx" xid8 not null default pg_current_xact_id(),
      "occurred_at" timestamptz not null default now(),
      "type" text not null,
      "subject_type" text not null,
      "subject_id" int not null,
      "project_id" int null,
      "changes" jsonb not null)`);
    this.addSql(`create index "change_event_tx_id_index" on "change_event" ("tx", "id")`);

    // `changes` holds {field: {before, after}} of the fields that differ (before null on creation).
    this.addSql(`create function change_event_fields(before jsonb, after jsonb) returns jsonb
      language sql immutable as $$
        select coalesce(jsonb_object_agg(k, jsonb_build_object('before', before -> k, 'after', after -> k)), '{}'::jsonb)
          from jsonb_object_keys(after) as k
         where before is null or (before -> k) is distinct from (after -> k)
      $$`);

    for (const [table, fields] of Object.entries(TRACKED)) {
      this.addSql(`create function change_event_${table}() ${trackedFunctionBody(table, fields)}`);
      this.addSql(
        `create trigger "${table}_change_event" after insert or update on "${table}"
           for each row execute function change_event_${table}()`,
      );
    }

    // Documents: published on insert (with the revision it replaces), superseded when a newer
    // revision takes its place.
    this.addSql(`create function change_event_document() ${DOCUMENT_FUNCTION_BODY}`);
    this.addSql(
      `create trigger "document_change_event" after insert or update of is_latest on "document"
         for each row execute function change_event_document()`,
    );

    // An extraction's outcome is the document's: indexed (with text, or none to read) or failed.
    this.addSql(`create function change_event_extraction() returns trigger language plpgsql as $$
      begin
        if new.status in ('completed', 'no_text', 'failed') and old.status is distinct from new.status then
          insert into change_event (type, subject_type, subject_id, project_id, changes)
            select case new.status when 'failed' then 'document.failed' else 'document.indexed' end,
                   'document', d.id, d.project_id,
                   change_event_fields(
                     jsonb_build_object('status', old.status, 'method', old.method, 'page_count', old.page_count,
                                        'error', old.error),
                     jsonb_build_object('status', new.status, 'method', new.method, 'page_count', new.page_count,
                                        'error', new.error))
              from document d where d.id = new.document_id;
        end if;
        return null;
      end $$`);
    this.addSql(
      `create trigger "extraction_change_event" after update of status on "extraction"
         for each row execute function change_event_extraction()`,
    );
  }

  override down(): void {
    for (const table of [...Object.keys(TRACKED), 'document', 'extraction']) {
      this.addSql(`drop trigger if exists "${table}_change_event" on "${table}"`);
      this.addSql(`drop function if exists change_event_${table}()`);
    }
    this.addSql(`drop function if exists change_event_fields(jsonb, jsonb)`);
    this.addSql(`drop table if exists "change_event"`);
  }
}
