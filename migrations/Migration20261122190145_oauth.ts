import { Migration } from '@mikro-orm/migrations';

export class Migration20261122190145_oauth extends Migration {
  override name = 'Migration20261122190145_oauth';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "oauth_client" ("id" varchar(64) not null, "client_name" varchar(200) null, "redirect_uris" text[] not null, "metadata" jsonb not null, "created_at" timestamptz not null, primary key ("id"));`,
    );

    this.addSql(
      `create table "oauth_authorization" ("id" varchar(64) not null, "client_id" varchar(64) not null, "redirect_uri" text not null, "code_challenge" varchar(128) not null, "state" text null, "scopes" text[] not null, "resource" varchar(500) not null, "user_id" int null, "team_id" int null, "code_hash" varchar(64) null, "family" varchar(64) null, "expires_at" timestamptz not null, "approved_at" timestamptz null, "exchanged_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "oauth_authorization_client_id_index" on "oauth_authorization" ("client_id");`);
    this.addSql(
      `alter table "oauth_authorization" add constraint "oauth_authorization_code_hash_unique" unique ("code_hash");`,
    );
    this.addSql(
      `create index "oauth_authorization_expires_at_index" on "oauth_authorization" ("expires_at");`,
    );

    this.addSql(
      `create table "oauth_refresh_token" ("id" serial primary key, "family" varchar(64) not null, "client_id" varchar(64) not null, "user_id" int not null, "team_id" int not null, "secret_hash" varchar(64) not null, "resource" varchar(500) not null, "scopes" text[] not null, "access_token_id" int null, "expires_at" timestamptz not null, "used_at" timestamptz null, "revoked_at" timestamptz null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "oauth_refresh_token_family_index" on "oauth_refresh_token" ("family");`);
    this.addSql(
      `alter table "oauth_refresh_token" add constraint "oauth_refresh_token_secret_hash_unique" unique ("secret_hash");`,
    );

    this.addSql(
      `create table "user_session" ("id" serial primary key, "user_id" int not null, "secret_hash" varchar(64) not null, "expires_at" timestamptz not null, "last_seen_at" timestamptz null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "user_session_user_id_index" on "user_session" ("user_id");`);
    this.addSql(
      `alter table "user_session" add constraint "user_session_secret_hash_unique" unique ("secret_hash");`,
    );

    this.addSql(
      `alter table "oauth_authorization" add constraint "oauth_authorization_client_id_foreign" foreign key ("client_id") references "oauth_client" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "oauth_authorization" add constraint "oauth_authorization_user_id_foreign" foreign key ("user_id") references "app_user" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "oauth_authorization" add constraint "oauth_authorization_team_id_foreign" foreign key ("team_id") references "team" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "oauth_refresh_token" add constraint "oauth_refresh_token_client_id_foreign" foreign key ("client_id") references "oauth_client" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "oauth_refresh_token" add constraint "oauth_refresh_token_user_id_foreign" foreign key ("user_id") references "app_user" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "oauth_refresh_token" add constraint "oauth_refresh_token_team_id_foreign" foreign key ("team_id") references "team" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "oauth_refresh_token" add constraint "oauth_refresh_token_access_token_id_foreign" foreign key ("access_token_id") references "access_token" ("id") on delete set null;`,
    );

    this.addSql(
      `alter table "user_session" add constraint "user_session_user_id_foreign" foreign key ("user_id") references "app_user" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "oauth_authorization" drop constraint "oauth_authorization_client_id_foreign";`);
    this.addSql(`alter table "oauth_refresh_token" drop constraint "oauth_refresh_token_client_id_foreign";`);

    this.addSql(`drop table if exists "oauth_client" cascade;`);
    this.addSql(`drop table if exists "oauth_authorization" cascade;`);
    this.addSql(`drop table if exists "oauth_refresh_token" cascade;`);
    this.addSql(`drop table if exists "user_session" cascade;`);
  }
}
