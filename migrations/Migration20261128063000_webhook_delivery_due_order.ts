import { Migration } from '@mikro-orm/migrations';

/**
 * The deliverer claims the first due deliveries in (next_attempt_at, id) order. An index on
 * next_attempt_at alone gave the rows but not that order, so each claim read and sorted every due
 * delivery: a backlog of a hundred thousand made each claim of fifty read them all. With the id in
 * the index the claim reads the fifty it takes.
 */
export class Migration20261128063000_webhook_delivery_due_order extends Migration {
  override name = 'Migration20261128063000_webhook_delivery_due_order';

  override up(): void {
    this.addSql(`drop index if exists "webhook_delivery_due_index"`);
    this.addSql(
      `create index "webhook_delivery_due_index" on "webhook_delivery" ("next_attempt_at", "id") where "status" = 'pending'`,
    );
  }

  override down(): void {
    this.addSql(`drop index if exists "webhook_delivery_due_index"`);
    this.addSql(
      `create index "webhook_delivery_due_index" on "webhook_delivery" ("next_attempt_at") where "status" = 'pending'`,
    );
  }
}
