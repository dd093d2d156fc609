import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATION_NAME, MIGRATIONS } from '../../../migrations/index.js';

const DIR = join(import.meta.dirname, '../../../migrations');

/**
 * Migrations written before the one scheme (timestamped before it began) keep the names the
 * migrations table already records: MikroORM runs every listed migration whose name it has not
 * recorded, so renaming one would run it again on every existing database.
 */
const SCHEME_SINCE = '20261128030000';
const earlier = (name: string) => (/^Migration(\d{14})/.exec(name)?.[1] ?? '') < SCHEME_SINCE;

describe('migration names', () => {
  const files = readdirSync(DIR)
    .filter((f) => f !== 'index.ts' && f.endsWith('.ts'))
    .map((f) => f.slice(0, -'.ts'.length))
    .sort();

  it('lists every migration file once, in the order of their timestamps', () => {
    expect(MIGRATIONS.map((m) => m.name)).toEqual(files);
  });

  it('names each migration alike in its file name, its class and the migrations table', () => {
    for (const { name, class: migration } of MIGRATIONS) {
      expect(migration.name).toBe(name);
      expect(readFileSync(join(DIR, `${name}.ts`), 'utf8')).toContain(
        `export class ${name} extends Migration`,
      );
    }
  });

  it('names new migrations as `npm run migration:create -- --name <snake_case>` writes them', () => {
    const off = MIGRATIONS.map((m) => m.name).filter((n) => !earlier(n) && !MIGRATION_NAME.test(n));
    expect(off).toEqual([]);
  });

  it('accepts the scheme and refuses the others', () => {
    expect(earlier('Migration20261128001000Webhooks')).toBe(true);
    expect(earlier('Migration20261129120000SearchSynonyms')).toBe(false);
    expect(MIGRATION_NAME.test('Migration20261129120000_search_synonyms')).toBe(true);
    expect(MIGRATION_NAME.test('Migration20261129120000SearchSynonyms')).toBe(false);
    expect(MIGRATION_NAME.test('Migration20261129120000')).toBe(false);
    expect(MIGRATION_NAME.test('Migration2026112912_x')).toBe(false);
  });
});
