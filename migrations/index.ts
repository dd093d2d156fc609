import { Migration20261122180240 } from './Migration20261122180240.js';
import { Migration20261122183000RateLimit } from './Migration20261122183000RateLimit.js';
import { Migration20261122190145_oauth } from './Migration20261122190145_oauth.js';
import { Migration20261123200000ExactSearchVector } from './Migration20261123200000ExactSearchVector.js';
import { Migration20261123211157_subscription_standing } from './Migration20261123211157_subscription_standing.js';
import { Migration20261124002000WholeNumbers } from './Migration20261124002000WholeNumbers.js';
import { Migration20261124004000SearchVocabulary } from './Migration20261124004000SearchVocabulary.js';
import { Migration20261124180000CacheGeneration } from './Migration20261124180000CacheGeneration.js';
import { Migration20261124194000InlineSearchVector } from './Migration20261124194000InlineSearchVector.js';
import { Migration20261125183000SearchGeneration } from './Migration20261125183000SearchGeneration.js';
import { Migration20261126180000SearchCoverageTrigger } from './Migration20261126180000SearchCoverageTrigger.js';
import { Migration20261127230000OcrConfidence } from './Migration20261127230000OcrConfidence.js';
import { Migration20261127233000TeamSettings } from './Migration20261127233000TeamSettings.js';
import { Migration20261128000000ChangeEvents } from './Migration20261128000000ChangeEvents.js';
import { Migration20261128001000Webhooks } from './Migration20261128001000Webhooks.js';
import { Migration20261128020000RolledKeyWindow } from './Migration20261128020000RolledKeyWindow.js';
import { Migration20261128023000_client_id_urls } from './Migration20261128023000_client_id_urls.js';
import { Migration20261128030000_change_event_retention } from './Migration20261128030000_change_event_retention.js';
import { Migration20261128063000_webhook_delivery_due_order } from './Migration20261128063000_webhook_delivery_due_order.js';
import { Migration20261128100000_change_event_direct_diff } from './Migration20261128100000_change_event_direct_diff.js';

/**
 * The one naming scheme of migrations: `Migration<UTC yyyyMMddHHmmss>_<snake_case_name>`, which
 * MikroORM's own generator writes for `npm run migration:create -- --name <snake_case_name>` (file,
 * class and the name recorded in the migrations table alike). Names written before it keep their
 * style: the table records them (test/unit/db/migration-names.test.ts).
 */
export const MIGRATION_NAME = /^Migration\d{14}_[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

// The ordered list of migrations, imported statically so they run the same from source (tests) and from dist.
export const MIGRATIONS = [
  { name: 'Migration20261122180240', class: Migration20261122180240 },
  { name: 'Migration20261122183000RateLimit', class: Migration20261122183000RateLimit },
  { name: 'Migration20261122190145_oauth', class: Migration20261122190145_oauth },
  { name: 'Migration20261123200000ExactSearchVector', class: Migration20261123200000ExactSearchVector },
  {
    name: 'Migration20261123211157_subscription_standing',
    class: Migration20261123211157_subscription_standing,
  },
  { name: 'Migration20261124002000WholeNumbers', class: Migration20261124002000WholeNumbers },
  { name: 'Migration20261124004000SearchVocabulary', class: Migration20261124004000SearchVocabulary },
  { name: 'Migration20261124180000CacheGeneration', class: Migration20261124180000CacheGeneration },
  { name: 'Migration20261124194000InlineSearchVector', class: Migration20261124194000InlineSearchVector },
  { name: 'Migration20261125183000SearchGeneration', class: Migration20261125183000SearchGeneration },
  {
    name: 'Migration20261126180000SearchCoverageTrigger',
    class: Migration20261126180000SearchCoverageTrigger,
  },
  { name: 'Migration20261127230000OcrConfidence', class: Migration20261127230000OcrConfidence },
  { name: 'Migration20261127233000TeamSettings', class: Migration20261127233000TeamSettings },
  { name: 'Migration20261128000000ChangeEvents', class: Migration20261128000000ChangeEvents },
  { name: 'Migration20261128001000Webhooks', class: Migration20261128001000Webhooks },
  { name: 'Migration20261128020000RolledKeyWindow', class: Migration20261128020000RolledKeyWindow },
  { name: 'Migration20261128023000_client_id_urls', class: Migration20261128023000_client_id_urls },
  {
    name: 'Migration20261128030000_change_event_retention',
    class: Migration20261128030000_change_event_retention,
  },
  {
    name: 'Migration20261128063000_webhook_delivery_due_order',
    class: Migration20261128063000_webhook_delivery_due_order,
  },
  {
    name: 'Migration20261128100000_change_event_direct_diff',
    class: Migration20261128100000_change_event_direct_diff,
  },
];
