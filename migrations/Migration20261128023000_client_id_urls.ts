import { Migration } from '@mikro-orm/migrations';

/**
 * Client ids may be the HTTPS URL of a client's metadata document (OAuth Client ID Metadata
 * Documents), not only the UUIDs dynamic registration assigns: every column holding one takes
 * up to 2,048 characters. Widening a varchar rewrites nothing.
 */
export class Migration20261128023000_client_id_urls extends Migration {
  override name = 'Migration20261128023000_client_id_urls';

  override up(): void {
    this.addSql(`alter table "oauth_client" alter column "id" type varchar(2048)`);
    this.addSql(`alter table "oauth_authorization" alter column "client_id" type varchar(2048)`);
    this.addSql(`alter table "oauth_refresh_token" alter column "client_id" type varchar(2048)`);
    this.addSql(`alter table "access_token" alter column "client_id" type varchar(2048)`);
  }

  override down(): void {
    this.addSql(`delete from "oauth_client" where length("id") > 64`);
    this.addSql(`update "access_token" set "client_id" = null where length("client_id") > 200`);
    this.addSql(`alter table "access_token" alter column "client_id" type varchar(200)`);
    this.addSql(`alter table "oauth_refresh_token" alter column "client_id" type varchar(64)`);
    this.addSql(`alter table "oauth_authorization" alter column "client_id" type varchar(64)`);
    this.addSql(`alter table "oauth_client" alter column "id" type varchar(64)`);
  }
}
