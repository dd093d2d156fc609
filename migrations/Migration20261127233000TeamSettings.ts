import { Migration } from '@mikro-orm/migrations';

/**
 * The team settings pages' tables: the one-time form ids already submitted (a double submit then
 * changes nothing), and the daily request counts per API key and MCP access token, written in
 * batches by src/usage/usage.counter.ts, never on the request path.
 */
export class Migration20261127233000TeamSettings extends Migration {
  override name = 'Migration20261127233000TeamSettings';

  override up(): void {
    this.addSql(
      `create table "settings_form_use" ("nonce" varchar(64) primary key, "created_at" timestamptz not null default now());`,
    );
    this.addSql(`create index "settings_form_use_created_at_index" on "settings_form_use" ("created_at");`);
    this.addSql(
      `create table "credential_usage_day" (
         "credential_kind" varchar(16) not null check ("credential_kind" in ('api-key', 'access-token')),
         "credential_id" int not null,
         "team_id" int not null references "team" ("id") on delete cascade,
         "day" date not null,
         "requests" bigint not null default 0,
         primary key ("credential_kind", "credential_id", "day"));`,
    );
    this.addSql(
      `create index "credential_usage_day_team_day_index" on "credential_usage_day" ("team_id", "day");`,
    );
  }

  override down(): void {
    this.addSql(`drop table if exists "credential_usage_day";`);
    this.addSql(`drop table if exists "settings_form_use";`);
  }
}
