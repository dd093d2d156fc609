import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startTestApp, type TestApp } from '../../support/app.js';
import {
  addMember,
  createAccessToken,
  createProject,
  createTeam,
  createUser,
} from '../../support/factories.js';
import { freePort } from '../../support/net.js';
import {
  PG_BIN,
  pgTool,
  shareWithPostgres,
  startCluster,
  stopCluster,
} from '../../support/postgres-server.js';
import { makePdf, UPLOAD } from '../../support/pdf.js';
import { describeWith } from '../../support/requirements.js';

/**
 * Read replicas: a private PostgreSQL primary (initdb, wal_level=replica) and a streaming replica
 * made with `pg_basebackup -R`, both on free ports and removed after. With replay paused on the
 * replica, an upload goes to the primary (the replica is read-only and would refuse it) while a
 * search does not see the new document: the lagging replica answered it. After replay resumes, the
 * same search finds it. The shared server is never touched.
 */

// Needs the PostgreSQL 15 server binaries (installed with the server, as in CI); without them the
// test cannot build a replica, so it is skipped rather than faked.
const maybe = describeWith(
  existsSync(join(PG_BIN, 'pg_basebackup')),
  `the PostgreSQL server binaries (${PG_BIN})`,
);

maybe('read replicas', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pds-replica-'));
  const primaryDir = join(dir, 'primary');
  const replicaDir = join(dir, 'replica');
  let primaryPort = 0;
  let replicaPort = 0;
  let t: TestApp | undefined;
  let token = '';
  let projectId = 0;

  const url = (port: number, db = 'pds') => `postgres://postgres@127.0.0.1:${port}/${db}`;
  const start = (data: string, port: number) => startCluster(data, port, dir);
  const stop = (data: string) => stopCluster(data);
  async function sql<T = Record<string, unknown>>(
    port: number,
    text: string,
    params: unknown[] = [],
  ): Promise<T[]> {
    const client = new pg.Client({ connectionString: url(port) });
    await client.connect();
    try {
      return (await client.query(text, params)).rows as T[];
    } finally {
      await client.end();
    }
  }

  beforeAll(async () => {
    shareWithPostgres(dir);
    primaryPort = await freePort();
    replicaPort = await freePort();
    pgTool('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '--no-sync']);
    writeFileSync(
      join(primaryDir, 'postgresql.auto.conf'),
      "listen_addresses = '127.0.0.1'\nwal_level = replica\nmax_wal_senders = 4\nfsync = off\nshared_buffers = 32MB\n",
    );
    start(primaryDir, primaryPort);
    const admin = new pg.Client({ connectionString: url(primaryPort, 'postgres') });
    await admin.connect();
    await admin.query('create database pds');
    await admin.end();
    pgTool('pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(primaryPort),
      '-U',
      'postgres',
      '-D',
      replicaDir,
      '-R',
      '-X',
      'stream',
      // An immediate checkpoint: the default "spread" one waits out most of checkpoint_timeout.
      '--checkpoint=fast',
    ]);
    start(replicaDir, replicaPort);

    t = await startTestApp({ DATABASE_URL: url(primaryPort), DATABASE_REPLICA_URLS: url(replicaPort) });
    const team = await createTeam(t, { plan: 'pro' });
    const user = await createUser(t);
    await addMember(t, team.id, user.id);
    token = (await createAccessToken(t, team.id, user.id)).secret;
    projectId = (await createProject(t, { name: 'Replica Heights' })).id;
  }, 300_000);

  afterAll(async () => {
    await t?.close();
    stop(replicaDir);
    stop(primaryDir);
    rmSync(dir, { recursive: true, force: true });
  });

  const SEARCH = `query($q: String!) { searchDocumentText(query: $q) { meta { totalChunksMatched } } }`;
  const PROJECTS = `query { projects(filter: { q: "Replica" }) { total } }`;

  async function caughtUp(): Promise<void> {
    const [{ lsn }] = await sql<{ lsn: string }>(primaryPort, 'select pg_current_wal_lsn()::text as lsn');
    for (let i = 0; i < 200; i++) {
      const [{ behind }] = await sql<{ behind: boolean }>(
        replicaPort,
        'select pg_last_wal_replay_lsn() < $1::pg_lsn as behind',
        [lsn],
      );
      if (!behind) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the replica did not catch up');
  }

  it('answers searches from the replica and takes uploads on the primary', async () => {
    await caughtUp();
    expect((await sql(replicaPort, 'select pg_is_in_recovery() as r'))[0]).toEqual({ r: true });
    await sql(replicaPort, 'select pg_wal_replay_pause()');
    const pdf = await makePdf(['Every suite has a heated towel rail and a wine fridge.']);
    const res = await t!.gql(
      UPLOAD,
      {
        input: {
          projectId,
          name: 'features.pdf',
          category: 'features-finishes',
          contentBase64: pdf.toString('base64'),
        },
      },
      t!.operator,
    );
    expect(res.errors).toBeUndefined();
    await t!.app.deps.ingestion.queue.idle();
    const onPrimary = await sql<{ n: number }>(
      primaryPort,
      'select count(*)::int as n from chunk where search_text like $1',
      ['%wine fridge%'],
    );
    expect(onPrimary).toEqual([{ n: 1 }]);

    const lagging = await t!.gql(SEARCH, { q: 'wine fridge' }, token);
    expect(lagging.errors).toBeUndefined();
    expect(lagging.data.searchDocumentText.meta.totalChunksMatched).toBe(0);

    await sql(replicaPort, 'select pg_wal_replay_resume()');
    await caughtUp();
    const fresh = await t!.gql(SEARCH, { q: 'wine fridge' }, token);
    expect(fresh.data.searchDocumentText.meta.totalChunksMatched).toBe(1);
  }, 300_000);

  it('serves the catalogue from the replica', async () => {
    await caughtUp();
    await sql(replicaPort, 'select pg_wal_replay_pause()');
    try {
      await createProject(t!, { name: 'Replica Gardens' });
      const lagging = await t!.gql(PROJECTS, {}, t!.operator);
      expect(lagging.errors).toBeUndefined();
      expect(lagging.data.projects.total).toBe(1);
    } finally {
      await sql(replicaPort, 'select pg_wal_replay_resume()');
    }
    await caughtUp();
    expect((await t!.gql(PROJECTS, {}, t!.operator)).data.projects.total).toBe(2);
  }, 120_000);
});
