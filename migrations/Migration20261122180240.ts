import { Migration } from '@mikro-orm/migrations';

export class Migration20261122180240 extends Migration {
  override name = 'Migration20261122180240';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "developer" ("id" serial primary key, "name" varchar(200) not null, "created_at" timestamptz not null);`,
    );
    this.addSql(`alter table "developer" add constraint "developer_name_unique" unique ("name");`);

    this.addSql(
      `create table "project" ("id" serial primary key, "name" varchar(200) not null, "slug" varchar(200) not null, "developer_id" int null, "address" varchar(300) null, "city" varchar(120) not null, "province" varchar(60) null, "lat" double precision null, "lng" double precision null, "construction_status" text null, "sales_status" text null, "storeys" int null, "total_units" int null, "price_min" int null, "price_max" int null, "occupancy_date" varchar(10) null, "created_at" timestamptz not null);`,
    );
    this.addSql(`alter table "project" add constraint "project_slug_unique" unique ("slug");`);
    this.addSql(`create index "project_city_index" on "project" ("city");`);
    this.addSql(
      `alter table "project" add constraint "project_construction_status_check" check ("construction_status" in ('pre-construction', 'under-construction', 'completed'));`,
    );
    this.addSql(
      `alter table "project" add constraint "project_sales_status_check" check ("sales_status" in ('coming-soon', 'selling', 'sold-out'));`,
    );

    this.addSql(
      `create table "document" ("id" serial primary key, "project_id" int not null, "name" varchar(300) not null, "category" text not null, "type" varchar(100) null, "supersedes_id" int null, "is_latest" boolean not null default true, "content_hash" varchar(64) not null, "byte_size" int not null, "content" bytea not null, "current_extraction_id" int null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "document_project_id_index" on "document" ("project_id");`);
    this.addSql(
      `alter table "document" add constraint "document_project_id_content_hash_unique" unique ("project_id", "content_hash");`,
    );
    this.addSql(
      `alter table "document" add constraint "document_category_check" check ("category" in ('incentives', 'features-finishes', 'brochure', 'hot-list', 'price-list', 'deposit-structure', 'fact-sheet', 'other'));`,
    );

    this.addSql(
      `create table "extraction" ("id" serial primary key, "document_id" int not null, "status" text not null default 'pending', "method" varchar(60) null, "extractor_version" varchar(60) null, "normalizer_version" int null, "page_count" int not null default 0, "raw_text_length" int not null default 0, "attempts" int not null default 0, "error" text null, "indexed_at" timestamptz null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "extraction_document_id_index" on "extraction" ("document_id");`);
    this.addSql(
      `alter table "extraction" add constraint "extraction_status_check" check ("status" in ('pending', 'processing', 'completed', 'no_text', 'failed'));`,
    );

    this.addSql(
      `create table "chunk" ("id" serial primary key, "extraction_id" int not null, "document_id" int not null, "project_id" int not null, "chunk_index" int not null, "page_number" int not null, "raw_text" text not null, "search_text" text not null, "search_tokens" text not null, "text_hash" varchar(64) not null, "search_vector" tsvector generated always as (to_tsvector('simple'::regconfig, search_tokens)) stored null);`,
    );
    this.addSql(`create index "chunk_document_id_index" on "chunk" ("document_id");`);
    this.addSql(`create index "chunk_project_id_index" on "chunk" ("project_id");`);
    this.addSql(
      `create index "chunk_extraction_id_chunk_index_index" on "chunk" ("extraction_id", "chunk_index");`,
    );
    this.addSql(`create index "chunk_search_vector_gin" on "chunk" using gin ("search_vector");`);

    this.addSql(
      `create table "building" ("id" serial primary key, "project_id" int not null, "name" varchar(200) not null, "addresses" text[] not null, "aliases" text[] not null, "mls_building_key" varchar(60) null, "condo_corp_number" varchar(60) null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "building_project_id_index" on "building" ("project_id");`);
    this.addSql(`create index "building_mls_building_key_index" on "building" ("mls_building_key");`);

    this.addSql(
      `create table "floor_plan" ("id" serial primary key, "project_id" int not null, "building_id" int null, "name" varchar(200) not null, "model" varchar(100) null, "bedrooms" int not null, "dens" int not null default 0, "bathrooms" double precision not null, "interior_sqft" int null, "exterior_sqft" int null, "exposure" varchar(4) null, "floor_min" int null, "floor_max" int null, "stacks" text[] not null, "unit_numbers" text[] not null, "start_price" int null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "floor_plan_project_id_index" on "floor_plan" ("project_id");`);
    this.addSql(`create index "floor_plan_building_id_index" on "floor_plan" ("building_id");`);

    this.addSql(
      `create table "team" ("id" serial primary key, "name" varchar(200) not null, "plan" text not null, "agent_tier" text not null default 'none', "subscription_status" text not null default 'active', "created_at" timestamptz not null);`,
    );
    this.addSql(
      `alter table "team" add constraint "team_plan_check" check ("plan" in ('sandbox', 'essential', 'pro', 'elite'));`,
    );
    this.addSql(
      `alter table "team" add constraint "team_agent_tier_check" check ("agent_tier" in ('none', 'agent', 'enterprise'));`,
    );
    this.addSql(
      `alter table "team" add constraint "team_subscription_status_check" check ("subscription_status" in ('active', 'past_due', 'canceled'));`,
    );

    this.addSql(
      `create table "app_user" ("id" serial primary key, "email" varchar(320) not null, "name" varchar(200) not null, "password_hash" varchar(300) not null, "created_at" timestamptz not null);`,
    );
    this.addSql(`alter table "app_user" add constraint "app_user_email_unique" unique ("email");`);

    this.addSql(
      `create table "membership" ("id" serial primary key, "team_id" int not null, "user_id" int not null, "role" text not null, "created_at" timestamptz not null);`,
    );
    this.addSql(
      `alter table "membership" add constraint "membership_team_id_user_id_unique" unique ("team_id", "user_id");`,
    );
    this.addSql(
      `alter table "membership" add constraint "membership_role_check" check ("role" in ('owner', 'admin', 'member'));`,
    );

    this.addSql(
      `create table "api_key" ("id" serial primary key, "team_id" int not null, "name" varchar(200) not null, "prefix" varchar(32) not null, "secret_hash" varchar(64) not null, "scopes" text[] not null, "created_by_id" int null, "last_used_at" timestamptz null, "expires_at" timestamptz null, "revoked_at" timestamptz null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "api_key_team_id_index" on "api_key" ("team_id");`);
    this.addSql(`alter table "api_key" add constraint "api_key_secret_hash_unique" unique ("secret_hash");`);

    this.addSql(
      `create table "access_token" ("id" serial primary key, "team_id" int not null, "user_id" int null, "kind" text not null, "name" varchar(200) not null, "prefix" varchar(32) not null, "secret_hash" varchar(64) not null, "scopes" text[] not null, "client_id" varchar(200) null, "resource" varchar(500) null, "last_used_at" timestamptz null, "expires_at" timestamptz null, "revoked_at" timestamptz null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "access_token_team_id_index" on "access_token" ("team_id");`);
    this.addSql(
      `alter table "access_token" add constraint "access_token_secret_hash_unique" unique ("secret_hash");`,
    );
    this.addSql(
      `alter table "access_token" add constraint "access_token_kind_check" check ("kind" in ('personal', 'oauth'));`,
    );

    this.addSql(
      `alter table "project" add constraint "project_developer_id_foreign" foreign key ("developer_id") references "developer" ("id") on delete set null;`,
    );

    this.addSql(
      `alter table "document" add constraint "document_project_id_foreign" foreign key ("project_id") references "project" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "document" add constraint "document_supersedes_id_foreign" foreign key ("supersedes_id") references "document" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "document" add constraint "document_current_extraction_id_foreign" foreign key ("current_extraction_id") references "extraction" ("id") on delete set null;`,
    );

    this.addSql(
      `alter table "extraction" add constraint "extraction_document_id_foreign" foreign key ("document_id") references "document" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "chunk" add constraint "chunk_extraction_id_foreign" foreign key ("extraction_id") references "extraction" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "chunk" add constraint "chunk_document_id_foreign" foreign key ("document_id") references "document" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "chunk" add constraint "chunk_project_id_foreign" foreign key ("project_id") references "project" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "building" add constraint "building_project_id_foreign" foreign key ("project_id") references "project" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "floor_plan" add constraint "floor_plan_project_id_foreign" foreign key ("project_id") references "project" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "floor_plan" add constraint "floor_plan_building_id_foreign" foreign key ("building_id") references "building" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "membership" add constraint "membership_team_id_foreign" foreign key ("team_id") references "team" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "membership" add constraint "membership_user_id_foreign" foreign key ("user_id") references "app_user" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "api_key" add constraint "api_key_team_id_foreign" foreign key ("team_id") references "team" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "api_key" add constraint "api_key_created_by_id_foreign" foreign key ("created_by_id") references "app_user" ("id") on delete set null;`,
    );

    this.addSql(
      `alter table "access_token" add constraint "access_token_team_id_foreign" foreign key ("team_id") references "team" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "access_token" add constraint "access_token_user_id_foreign" foreign key ("user_id") references "app_user" ("id") on delete cascade;`,
    );
  }
}
