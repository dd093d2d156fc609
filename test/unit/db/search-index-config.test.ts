import { ConfigError, loadConfig } from '../../../src/config.js';
import { ensureSearchIndex, SearchIndexError } from '../../../src/db/search-index.js';
import type { EntityManager } from '@mikro-orm/postgresql';

const PG = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/pds' };

describe('SEARCH_INDEX', () => {
  it('defaults to GIN, embedded or not', () => {
    expect(loadConfig({}).searchIndex).toBe('gin');
    expect(loadConfig(PG).searchIndex).toBe('gin');
  });

  it('takes rum on PostgreSQL', () => {
    expect(loadConfig({ ...PG, SEARCH_INDEX: 'rum' }).searchIndex).toBe('rum');
  });

  it('refuses rum on the embedded database, and any other value, before anything starts', () => {
    expect(() => loadConfig({ SEARCH_INDEX: 'rum' })).toThrow(ConfigError);
    expect(() => loadConfig({ SEARCH_INDEX: 'rum' })).toThrow(/rum needs DATABASE_URL/);
    expect(() => loadConfig({ ...PG, SEARCH_INDEX: 'btree' })).toThrow(/SEARCH_INDEX/);
  });

  it('keeps the embedded engine on GIN without touching it, and refuses RUM there', async () => {
    const untouched = {} as EntityManager;
    await expect(ensureSearchIndex(untouched, 'gin', true)).resolves.toBe('gin');
    await expect(ensureSearchIndex(untouched, 'rum', true)).rejects.toThrow(SearchIndexError);
  });
});
