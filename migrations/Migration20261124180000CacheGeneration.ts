import { Migration } from '@mikro-orm/migrations';

/**
 * Generation numbers for the caches each app node keeps (src/db/generation.ts): `auth` counts the
 * committed changes to what a credential resolves to (keys, tokens, teams, users, memberships),
 * `catalogue` those to what the Fusion APIs read (developers, projects, buildings, floor plans).
 * Triggers bump them in the writing transaction itself, so a reader that sees the new number also
 * sees the change, on every node and whoever wrote (the app, a CLI, psql).
 *
 * The triggers are deferred to commit and bump once per transaction: the row is locked only for the
 * moment of the commit, so concurrent writers queue there briefly and never deadlock on it.
 * `last_used_at`, stamped on credentials once a minute, is left out.
 */
const AUTH_TRIGGERS: [table: string, columns: string | null][] = [
  ['api_key', 'team_id, secret_hash, scopes, expires_at, revoked_at'],
  ['access_token', 'team_id, user_id, kind, secret_hash, scopes, resource, expires_at, revoked_at'],
  ['team', null],
  ['app_user', null],
  ['membership', null],
];
const CATALOGUE_TRIGGERS = ['developer', 'project', 'building', 'floor_plan'];

export class Migration20261124180000CacheGeneration extends Migration {
  override name = 'Migration20261124180000CacheGeneration';

  override up(): void {
    this.addSql(`create table "cache_generation" (
      "id" int primary key check ("id" = 1),
      "auth" bigint not null default 0,
      "catalogue" bigint not null default 0)`);
    this.addSql(`insert into "cache_generation" ("id") values (1)`);
    this.addSql(`create function bump_cache_generation() returns trigger language plpgsql as $$
      begin
        if current_setting('pds.cache_bumped_' || tg_argv[0], true) is distinct from 'y' then
          perform set_config('pds.cache_bumped_' || tg_argv[0], 'y', true);
          if tg_argv[0] = 'auth' then
            update cache_generation set auth = auth + 1 where id = 1;
          else
            update cache_generation set catalogue = catalogue + 1 where id = 1;
          end if;
        end if;
        return null;
      end $$`);
    const triggers = [
      ...AUTH_TRIGGERS.map(([table, columns]) => ({ table, columns, kind: 'auth' })),
      ...CATALOGUE_TRIGGERS.map((table) => ({ table, columns: null, kind: 'catalogue' })),
    ];
    for (const { table, columns, kind } of triggers) {
      this.addSql(
        `create constraint trigger "${table}_cache_generation"
           after insert or delete or update${columns ? ` of ${columns}` : ''} on "${table}"
           deferrable initially deferred for each row execute function bump_cache_generation('${kind}')`,
      );
      // TRUNCATE fires no row trigger.
      this.addSql(
        `create trigger "${table}_cache_generation_truncate" after truncate on "${table}"
           for each statement execute function bump_cache_generation('${kind}')`,
      );
    }
  }

  override down(): void {
    for (const table of [...AUTH_TRIGGERS.map(([t]) => t), ...CATALOGUE_TRIGGERS]) {
      this.addSql(`drop trigger if exists "${table}_cache_generation" on "${table}"`);
      this.addSql(`drop trigger if exists "${table}_cache_generation_truncate" on "${table}"`);
    }
    this.addSql(`drop function if exists bump_cache_generation()`);
    this.addSql(`drop table if exists "cache_generation"`);
  }
}
