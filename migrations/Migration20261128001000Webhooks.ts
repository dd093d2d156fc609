import { Migration } from '@mikro-orm/migrations';

/**
 * Signed webhooks (Standard Webhooks): a team's endpoints, one delivery row per endpoint and change
 * event (unique, so an event is never queued twice for an endpoint), and the dispatcher's position
 * in the change feed. Fan-out reads the feed after that position and writes the deliveries and the
 * new position in one transaction: an event is queued exactly once, or not yet.
 */
export class Migration20261128001000Webhooks extends Migration {
  override name = 'Migration20261128001000Webhooks';

  override up(): void {
    this.addSql(`create table "webhook_endpoint" (
      "id" serial primary key,
      "team_id" int not null references "team" ("id") on delete cascade,
      "url" varchar(2048) not null,
      "event_types" text[] not null default '{}',
      "secret" varchar(100) not null,
      "enabled" boolean not null default true,
      "disabled_reason" varchar(300) null,
      "failing_since" timestamptz null,
      "created_at" timestamptz not null default now())`);
    this.addSql(`create index "webhook_endpoint_team_id_index" on "webhook_endpoint" ("team_id")`);
    this.addSql(`create table "webhook_delivery" (
      "id" bigserial primary key,
      "endpoint_id" int not null references "webhook_endpoint" ("id") on delete cascade,
      "event_id" bigint not null references "change_event" ("id") on delete cascade,
      "status" text not null default 'pending' check ("status" in ('pending', 'delivered', 'failed')),
      "attempts" int not null default 0,
      "next_attempt_at" timestamptz not null default now(),
      "last_attempt_at" timestamptz null,
      "last_status_code" int null,
      "last_error" varchar(500) null,
      "last_latency_ms" int null,
      "response_excerpt" varchar(500) null,
      "delivered_at" timestamptz null,
      "created_at" timestamptz not null default now(),
      unique ("endpoint_id", "event_id"))`);
    this.addSql(
      `create index "webhook_delivery_due_index" on "webhook_delivery" ("next_attempt_at") where "status" = 'pending'`,
    );
    this.addSql(`create index "webhook_delivery_endpoint_index" on "webhook_delivery" ("endpoint_id", "id")`);
    this.addSql(`create table "webhook_dispatch" (
      "id" int primary key check ("id" = 1),
      "tx" xid8 not null,
      "event_id" bigint not null)`);
    // Endpoints see events from their creation on, so the dispatcher starts at the feed's current end.
    this.addSql(`insert into "webhook_dispatch" ("id", "tx", "event_id")
      select 1, coalesce(max(tx), '0'::xid8), coalesce(max(id), 0) from change_event`);
  }

  override down(): void {
    this.addSql(`drop table if exists "webhook_dispatch"`);
    this.addSql(`drop table if exists "webhook_delivery"`);
    this.addSql(`drop table if exists "webhook_endpoint"`);
  }
}
