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
  const pool = (await em.getConnection(connection).getNativeClient()) as {
    query: (sql: string, params: unknown[]) => Promise<{ rows: unknown[] }>;
  };
  return async <T>(sql: string, params: unknown[]) => (await pool.query(sql, params)).rows as T[];
}
