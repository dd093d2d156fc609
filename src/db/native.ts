import type { EntityManager } from '@mikro-orm/postgresql';

/** A parameterised statement ($1, $2, …) on the driver's own pool, returning its rows. */
export type NativeQuery = <T>(sql: string, params: unknown[]) => Promise<T[]>;

/**
 * The driver's pool (node-postgres, or PGlite behind its node-postgres adapter) without the ORM:
 * for hot read paths that need a few columns, not hydrated entities or an identity map. On the
 * `read` connection a read replica answers when one is configured (reads that tolerate lag).
 */
export async function nativeQuery(
  em: EntityManager,
  connection: 'read' | 'write' = 'write',
): Promise<NativeQuery> {
  const pool = await nativePool(em, connection);
  return async <T>(sql: string, params: unknown[]) => (await pool.query<T>(sql, params)).rows;
}

/** The driver's pool itself: statements with bound parameters, and `onConnection` for a transaction. */
export async function nativePool(
  em: EntityManager,
  connection: 'read' | 'write' = 'write',
): Promise<NativeClient> {
  return em.getConnection(connection).getNativeClient();
}

/** One connection of the driver's pool, as `onConnection` lends it. */
export interface NativeClient {
  query<R = unknown>(
    statement: string | { text: string; values?: unknown[]; name?: string },
    values?: unknown[],
  ): Promise<{ rows: R[] }>;
}

interface ConnectingPool {
  connect(): Promise<NativeClient & { release(err?: Error): void }>;
}

/**
 * Runs `work` on one connection of `pool`, which opens its transaction itself (`begin` with its own
 * options, or several statements in one message). When `work` throws, the transaction is rolled
 * back and the connection is discarded rather than returned to the pool, its state unknown.
 */
export async function onConnection<T>(pool: object, work: (client: NativeClient) => Promise<T>): Promise<T> {
  const client = await (pool as ConnectingPool).connect();
  let failed: Error | undefined;
  try {
    return await work(client);
  } catch (err) {
    failed = err as Error;
    await client.query('rollback').catch(() => undefined);
    throw err;
  } finally {
    client.release(failed);
  }
}
