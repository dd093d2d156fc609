import { Migration } from '@mikro-orm/migrations';

/** Shared rate-limit counters for RATE_LIMIT_STORE=postgres (rate-limiter-flexible's table layout). */
export class Migration20261122183000RateLimit extends Migration {
  override name = 'Migration20261122183000RateLimit';

  override up(): void {
    this.addSql(
      `create table if not exists "rate_limit" ("key" varchar(255) primary key, "points" integer not null default 0, "expire" bigint);`,
    );
  }

  override down(): void {
    this.addSql(`drop table if exists "rate_limit";`);
  }
}
