import { Migration } from '@mikro-orm/migrations';

/**
 * Change events are kept for a number of days (CHANGE_EVENT_RETENTION_DAYS). The horizon is the
 * last event deleted, in the feed's order: every event up to it is gone, so a feed cursor before
 * it would silently skip events and is refused instead. (0, 0): nothing deleted yet.
 */
export class Migration20261128030000_change_event_retention extends Migration {
  override name = 'Migration20261128030000_change_event_retention';

  override up(): void {
    this.addSql(`create table "change_event_horizon" (
      "id" int primary key check ("id" = 1),
      "tx" xid8 not null,
      "event_id" bigint not null,
      "pruned_at" timestamptz null)`);
    this.addSql(`insert into "change_event_horizon" ("id", "tx", "event_id") values (1, '0', 0)`);
  }

  override down(): void {
    this.addSql(`drop table if exists "change_event_horizon"`);
  }
}
