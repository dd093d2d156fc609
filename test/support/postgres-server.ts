import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The PostgreSQL 15 server binaries (installed with the server, as in CI). */
export const PG_BIN = '/usr/lib/postgresql/15/bin';
const asRoot = process.getuid?.() === 0;

/** PostgreSQL refuses to run as root: as root, run its tools as the `postgres` user. */
export function pgTool(tool: string, args: string[]): string {
  const [cmd, argv] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', join(PG_BIN, tool), ...args]]
    : [join(PG_BIN, tool), args];
  return execFileSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Makes a temp dir usable by the `postgres` user when the tests run as root. */
export function shareWithPostgres(dir: string): void {
  chmodSync(dir, 0o777);
  if (asRoot) execFileSync('chown', ['postgres', dir]);
}

/** Starts the cluster in `data` on `port`, its socket in `socketDir`; waits until it accepts connections. */
export function startCluster(data: string, port: number, socketDir: string): void {
  pgTool('pg_ctl', [
    '-D',
    data,
    '-l',
    join(data, 'server.log'),
    '-w',
    '-t',
    '60',
    '-o',
    `-p ${port} -k ${socketDir}`,
    'start',
  ]);
}

/** Stops the cluster if it runs: `fast` (sessions get admin_shutdown) or `immediate` (as a crash). */
export function stopCluster(data: string, mode: 'fast' | 'immediate' = 'immediate'): void {
  if (existsSync(join(data, 'postmaster.pid'))) pgTool('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
}

/** The postmaster and every backend and auxiliary process of the cluster (to freeze it whole). */
export function clusterPids(data: string): number[] {
  const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  let children: number[] = [];
  try {
    children = execFileSync('pgrep', ['-P', String(postmaster)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    // pgrep exits 1 when there are no children.
  }
  return [postmaster, ...children];
}
