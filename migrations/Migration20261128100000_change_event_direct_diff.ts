import { Migration } from '@mikro-orm/migrations';
import {
  DOCUMENT_FUNCTION_BODY,
  TRACKED,
  trackedFunctionBody,
} from './Migration20261128000000ChangeEvents.js';

/**
 * The project, building, floor-plan and document change-event triggers build `changes` field by
 * field in the trigger itself, the same `{field: {before, after}}` as before: on insert every
 * tracked field with a null `before`, on update the fields whose value is distinct. They no longer
 * assemble both rows as jsonb and compare them key by key through `change_event_fields`, which was
 * most of the trigger's cost on every write (docs/benchmarks.md, Change feed). The extraction's
 * trigger, which fires once a document, keeps it.
 *
 * The SQL here is fixed text: the tracked fields, and on `down` the functions this replaces, come
 * from the migration that created the triggers, which never changes either.
 */

/** `'field', {before, after}`: one pair of `changes`, the field's new value after `before`. */
const change = (field: string, before: string) =>
  `'${field}', jsonb_build_object('before', ${before}, 'after', new."${field}")`;

/** The body (from `returns`) of a tracked table's trigger function, field by field. */
function directFunctionBody(table: string, fields: string[]): string {
  const project = table === 'project' ? 'new.id' : 'new.project_id';
  const changed = fields
    .map(
      (f) => `if old."${f}" is distinct from new."${f}" then
              diff := diff || jsonb_build_object(${change(f, `old."${f}"`)});
            end if;`,
    )
    .join('\n            ');
  return `returns trigger language plpgsql as $$
        declare
          diff jsonb := '{}'::jsonb;
        begin
          if tg_op = 'INSERT' then
            insert into change_event (type, subject_type, subject_id, project_id, changes)
              values ('${table}.created', '${table}', new.id, ${project},
                      jsonb_build_object(${fields.map((f) => change(f, 'null')).join(', ')}));
          else
            ${changed}
            if diff <> '{}'::jsonb then
              insert into change_event (type, subject_type, subject_id, project_id, changes)
                values ('${table}.changed', '${table}', new.id, ${project}, diff);
            end if;
          end if;
          return null;
        end $$`;
}

/** The body of the document trigger function: published with its fields, superseded with is_latest. */
const DIRECT_DOCUMENT_FUNCTION_BODY = `returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          insert into change_event (type, subject_type, subject_id, project_id, changes)
            values ('document.published', 'document', new.id, new.project_id,
                    jsonb_build_object(${['name', 'category', 'type', 'supersedes_id'].map((f) => change(f, 'null')).join(', ')}));
        elsif old.is_latest and not new.is_latest then
          insert into change_event (type, subject_type, subject_id, project_id, changes)
            values ('document.superseded', 'document', new.id, new.project_id,
                    '{"is_latest": {"before": true, "after": false}}'::jsonb);
        end if;
        return null;
      end $$`;

export class Migration20261128100000_change_event_direct_diff extends Migration {
  override name = 'Migration20261128100000_change_event_direct_diff';

  override up(): void {
    this.replace(directFunctionBody, DIRECT_DOCUMENT_FUNCTION_BODY);
  }

  override down(): void {
    this.replace(trackedFunctionBody, DOCUMENT_FUNCTION_BODY);
  }

  private replace(tracked: (table: string, fields: string[]) => string, document: string): void {
    for (const [table, fields] of Object.entries(TRACKED)) {
      this.addSql(`create or replace function change_event_${table}() ${tracked(table, fields)}`);
    }
    this.addSql(`create or replace function change_event_document() ${document}`);
  }
}
