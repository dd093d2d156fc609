import { Migration } from '@mikro-orm/migrations';

/**
 * Subscription standing: the billing states trialing and unpaid, and when a team became past_due
 * (its grace period runs from then). Teams already past_due start their grace at the migration.
 */
export class Migration20261123211157_subscription_standing extends Migration {
  override name = 'Migration20261123211157_subscription_standing';

  override up(): void | Promise<void> {
    this.addSql(`alter table "team" drop constraint "team_subscription_status_check";`);
    this.addSql(`alter table "team" add "past_due_since" timestamptz null;`);
    this.addSql(
      `alter table "team" add constraint "team_subscription_status_check" check ("subscription_status" in ('active', 'trialing', 'past_due', 'unpaid', 'canceled'));`,
    );
    this.addSql(`update "team" set "past_due_since" = now() where "subscription_status" = 'past_due';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "team" drop constraint "team_subscription_status_check";`);
    this.addSql(
      `update "team" set "subscription_status" = 'active' where "subscription_status" = 'trialing';`,
    );
    this.addSql(
      `update "team" set "subscription_status" = 'canceled' where "subscription_status" = 'unpaid';`,
    );
    this.addSql(`alter table "team" drop column "past_due_since";`);
    this.addSql(
      `alter table "team" add constraint "team_subscription_status_check" check ("subscription_status" in ('active', 'past_due', 'canceled'));`,
    );
  }
}
