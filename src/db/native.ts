import type pg from 'pg';
import type { EntityManager } from '@mikro-orm/postgresql';
import { cancellable, workSignal } from './cancel.js';

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
  return async <T>(sql: string, params: unknown[]) =>
    (await queryOn<T>(pool, { text: sql, values: params })).rows;
}

/**
 * One statement on a connection of `pool`; while serving a request, cancelled on the server when
 * the request ends first (src/db/cancel.ts).
 */
export function queryOn<R = unknown>(
  pool: object,
  statement: { text: string; values?: unknown[]; name?: string },
): Promise<{ rows: R[] }> {
  return cancellable(pool as pg.Pool, workSignal(), (client) =>
    client.query<R & pg.QueryResultRow>(statement),
  );
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

/**
 * Runs `work` on one connection of `pool`, which opens its transaction itself (`begin` with its own
 * options, or several statements in one message). When `work` throws, the transaction is rolled
 * back and the connection is discarded rather than returned to the pool, its state unknown. While
 * serving a request, the running statement is cancelled on the server when the request ends first.
 */
export async function onConnection<T>(pool: object, work: (client: NativeClient) => Promise<T>): Promise<T> {
  return cancellable(pool as pg.Pool, workSignal(), async (client) => {
    try {
      return await work(client);
    } catch (err) {
      await client.query('rollback').catch(() => undefined);
      throw err;
    }
  });
}

/**
 * The `statement_timeout` (ms) every connection of `pool` runs under, from the pool's own options
 * (src/db/orm.ts gives the requests' pool DB_STATEMENT_TIMEOUT_MS); 0 when none (background work,
 * the embedded engine). A caller whose statement needs exactly this deadline can rely on it
 * instead of setting its own in a transaction (src/search).
 */
export function statementTimeoutOf(pool: object): number {
  const options = (pool as Partial<pg.Pool>).options;
  return typeof options?.statement_timeout === 'number' ? options.statement_timeout : 0;
}
