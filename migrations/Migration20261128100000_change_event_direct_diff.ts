import { Migration } from '@mikro-orm/migrations';

/**
 * The project, building, floor-plan and document change-event triggers build `changes` field by
 * field in the trigger itself, the same `{field: {before, after}}` as before: on insert every
 * tracked field with a null `before`, on update the fields whose value is distinct. They no longer
 * assemble both rows as jsonb and compare them key by key through `change_event_fields`, which was
 * most of the trigger's cost on every write (docs/benchmarks.md, Change feed). The extraction's
 * trigger, which fires once a document, keeps it.
 *
 * The SQL here is fixed text: it does not change when the application's code does.
 */
const TRACKED = {
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

const change = (field: string, before: string) =>
  `'${field}', jsonb_build_object('before', ${before}, 'after', new."${field}")`;

export class Migration20261128100000_change_event_direct_diff extends Migration {
  override name = 'Migration20261128100000_change_event_direct_diff';

  override up(): void {
    for (const [table, fields] of Object.entries(TRACKED)) {
      const project = table === 'project' ? 'new.id' : 'new.project_id';
      const changed = fields
        .map(
          (f) => `if old."${f}" is distinct from new."${f}" then
              diff := diff || jsonb_build_object(${change(f, `old."${f}"`)});
            end if;`,
        )
        .join('\n            ');
      this.addSql(`create or replace function change_event_${table}() returns trigger language plpgsql as $$
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
        end $$`);
    }
    this.addSql(`create or replace function change_event_document() returns trigger language plpgsql as $$
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
      end $$`);
  }

  override down(): void {
    const fieldsOf = (row: 'new' | 'old', fields: string[]) =>
      `jsonb_build_object(${fields.map((f) => `'${f}', ${row}."${f}"`).join(', ')})`;
    for (const [table, fields] of Object.entries(TRACKED)) {
      const project = table === 'project' ? 'new.id' : 'new.project_id';
      this.addSql(`create or replace function change_event_${table}() returns trigger language plpgsql as $$
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
        end $$`);
    }
    this.addSql(`create or replace function change_event_document() returns trigger language plpgsql as $$
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
      end $$`);
  }
}
