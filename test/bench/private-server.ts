import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/net.js';
import { pgTool, shareWithPostgres, startCluster, stopCluster } from '../support/postgres-server.js';

export interface PrivateServer {
  /** The cluster's maintenance database, for createFreshDatabase. */
  url: string;
  settings: Record<string, string>;
  stop: () => void;
}

/**
 * `name=value,name=value` (PostgreSQL settings, as in postgresql.conf) as a record; names are
 * checked against PostgreSQL's own rule (letters, digits, underscores, dots), values must be plain.
 */
export function parseSettings(spec: string): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const part of spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^([a-z_][a-z0-9_.]*)=([A-Za-z0-9_.-]+)$/i.exec(part);
    if (!m) throw new Error(`--private-server: "${part}" is not name=value (for example shared_buffers=6GB)`);
    settings[m[1]] = m[2];
  }
  return settings;
}

/**
 * A PostgreSQL 15 cluster of the bench's own (initdb in a temp dir, a free port on 127.0.0.1), with
 * `settings` written to its postgresql.conf: to measure against a server configured for the
 * machine rather than the shared one's configuration (Debian's default shared_buffers is 128 MB).
 */
export async function startPrivateServer(settings: Record<string, string>): Promise<PrivateServer> {
  const dir = mkdtempSync(join(tmpdir(), 'pds-bench-pg-'));
  shareWithPostgres(dir);
  const data = join(dir, 'data');
  pgTool('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync']);
  appendFileSync(
    join(data, 'postgresql.conf'),
    Object.entries(settings)
      .map(([name, value]) => `\n${name} = '${value}'`)
      .join('') + '\n',
  );
  const port = await freePort();
  startCluster(data, port, dir);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    settings,
    stop: () => {
      stopCluster(data, 'fast');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
