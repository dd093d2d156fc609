import { Migration } from '@mikro-orm/migrations';

/**
 * A rolled API key is charged to the rate-limit window of the key it replaced: `window_key_id`
 * names the first key of the rotation (null for a key that was never rolled, which is charged to
 * its own id). Without it a roll would start a fresh window and per-key limits would multiply.
 */
export class Migration20261128020000RolledKeyWindow extends Migration {
  override name = 'Migration20261128020000RolledKeyWindow';

  override up(): void {
    this.addSql(`alter table "api_key" add column "window_key_id" int null;`);
  }

  override down(): void {
    this.addSql(`alter table "api_key" drop column "window_key_id";`);
  }
}
