import DataLoader from 'dataloader';
import type { EntityManager } from '@mikro-orm/postgresql';
import { throwIfAborted } from '../errors/aborted.js';

/**
 * A batch read a feature defines once (`defineLoader`) and resolvers share per request through
 * `ctx.loaders.get(…)`: listing N projects with their children costs a constant number of
 * queries. The context knows no feature's loaders; a request builds only those it uses.
 */
export interface LoaderDefinition<K, V> {
  readonly name: string;
  readonly batch: (em: EntityManager, keys: readonly K[]) => Promise<V[]>;
}

export function defineLoader<K, V>(
  name: string,
  batch: (em: EntityManager, keys: readonly K[]) => Promise<V[]>,
): LoaderDefinition<K, V> {
  return { name, batch };
}

/** The loaders of one request, made on first use. */
export class RequestLoaders {
  private readonly made = new Map<LoaderDefinition<never, unknown>, DataLoader<never, unknown>>();

  constructor(
    private readonly em: EntityManager,
    private readonly signal?: AbortSignal,
  ) {}

  get<K, V>(definition: LoaderDefinition<K, V>): DataLoader<K, V> {
    const key = definition as unknown as LoaderDefinition<never, unknown>;
    let loader = this.made.get(key) as DataLoader<K, V> | undefined;
    if (!loader) {
      loader = new DataLoader<K, V>((keys) => {
        // A request past its deadline, or whose client left, reads nothing more.
        throwIfAborted(this.signal);
        return definition.batch(this.em, keys);
      });
      this.made.set(key, loader);
    }
    return loader;
  }
}

/** Rows in the order of `ids`, null where none was found. */
export function byId<T extends { id: number }>(rows: T[], ids: readonly number[]): (T | null)[] {
  const map = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => map.get(id) ?? null);
}

/** Rows grouped under each of `ids`, in the rows' order. */
export function groupBy<T>(rows: T[], key: (row: T) => number, ids: readonly number[]): T[][] {
  const map = new Map<number, T[]>(ids.map((id) => [id, []]));
  for (const row of rows) map.get(key(row))?.push(row);
  return ids.map((id) => map.get(id) ?? []);
}
