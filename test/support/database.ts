import pg from 'pg';

export interface FreshDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/**
 * Creates a database named `name` on the server of `baseUrl` (a maintenance database such as
 * .../postgres), empty or a copy of `template`, and returns its URL; `drop` removes it, closing
 * any connection still open.
 */
export async function createFreshDatabase(
  baseUrl: string,
  name: string,
  template?: string,
): Promise<FreshDatabase> {
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}${template ? ` template ${template}` : ''}`);
  } finally {
    await admin.end();
  }
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      const c = new pg.Client({ connectionString: baseUrl });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}
