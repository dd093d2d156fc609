import { createServer, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { DatabaseAvailability, classifyDbError, postgresProbe } from '../../../src/db/availability.js';
import { backendOf, cancellable } from '../../../src/db/cancel.js';
import { openDatabase, type Database } from '../../../src/db/orm.js';
import { createFreshDatabase, type FreshDatabase } from '../../support/database.js';
import { describeWith } from '../../support/requirements.js';

/**
 * The database pools on a real server: the requests' pool carries its bounds through
 * node-postgres's own options and the background pool does not; a request's statement is
 * cancelled on the server when its signal aborts; a full pool is overload, not an outage; an
 * outage is declared by the probe, logged once and ended by its first answer. Skipped on PGlite:
 * it is not node-postgres talking to a server (one in-process connection, no cancel, pg_sleep
 * blocks the engine); under CI=true DATABASE_URL is always set.
 */
const postgres = describeWith(!!process.env.DATABASE_URL, 'needs a PostgreSQL server (DATABASE_URL)');

const logged: string[] = [];
const log = {
  warn: (_: object, msg: string) => logged.push(msg),
  info: (_: object, msg: string) => logged.push(msg),
};

postgres('database pools', () => {
  let fresh: FreshDatabase;
  let db: Database;
  let requests: pg.Pool;
  let background: pg.Pool;

  beforeAll(async () => {
    fresh = await createFreshDatabase(
      process.env.DATABASE_URL!,
      `pds_pool_${randomBytes(5).toString('hex')}`,
    );
    db = await openDatabase(
      { databaseUrl: fresh.url, dataDir: 'memory://' },
      {
        requestBounds: {
          poolMax: 2,
          // Bounds every connect, a fresh connection's too: generous for a loaded CI machine.
          acquireTimeoutMs: 2000,
          statementTimeoutMs: 1500,
          idleInTransactionMs: 3000,
        },
      },
    );
    requests = await db.requests.em.getConnection().getNativeClient();
    background = await db.orm.em.getConnection().getNativeClient();
  });
  afterAll(async () => {
    await db.close();
    await fresh.drop();
  });

  const setting = async (pool: pg.Pool, name: string) =>
    (await pool.query<{ v: string }>(`select current_setting($1) as v`, [name])).rows[0].v;

  const running = async (marker: string) =>
    (
      await background.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity where state = 'active' and query like $1 and pid <> pg_backend_pid()`,
        [`%${marker}%`],
      )
    ).rows[0].n;

  it("gives the requests' connections their bounds and the background's none", async () => {
    expect(await setting(requests, 'statement_timeout')).toBe('1500ms');
    expect(await setting(requests, 'idle_in_transaction_session_timeout')).toBe('3s');
    expect(await setting(background, 'statement_timeout')).toBe('0');
    await expect(requests.query('select pg_sleep(5)')).rejects.toMatchObject({ code: '57014' });
    // Background work (jobs, migrations) is not bounded by the requests' timeout.
    await expect(background.query('select pg_sleep(2)')).resolves.toBeDefined();
    // Through the ORM too: its statements run on the same pools.
    await expect(db.requests.em.getConnection().execute('select pg_sleep(5)')).rejects.toMatchObject({
      code: '57014',
    });
  });

  it("knows a new connection's server process before the pool hands it out", async () => {
    // Both pooled connections are closed, so that the next one is opened for this test.
    const open = [await requests.connect(), await requests.connect()];
    open.forEach((c) => c.release(true));
    const client = await requests.connect();
    try {
      const known = backendOf(client);
      const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
      expect(known).toBe(rows[0].pid);
    } finally {
      client.release();
    }
  });

  it('cancels the running statement on the server when the signal aborts', async () => {
    const controller = new AbortController();
    const marker = `cancel_me_${randomBytes(4).toString('hex')}`;
    const started = Date.now();
    const query = cancellable(requests, controller.signal, (client) =>
      client.query(`select pg_sleep(1.2), '${marker}'`),
    );
    await new Promise((r) => setTimeout(r, 300));
    controller.abort(new Error('client gone'));
    await expect(query).rejects.toMatchObject({ code: '57014' });
    // Well before the sleep would have ended: the server stopped it.
    expect(Date.now() - started).toBeLessThan(1200);
    expect(await running(marker)).toBe(0);
    // A signal that aborts after the work settled cancels nothing that runs later.
    const late = new AbortController();
    await cancellable(requests, late.signal, (client) => client.query('select 1'));
    late.abort();
    await expect(requests.query('select pg_sleep(0.3)')).resolves.toBeDefined();
  });

  it('a full pool is overload: the wait is bounded by connectionTimeoutMillis, not an outage', async () => {
    // Held in the try, so that a failure to take the second cannot leave the first out of the pool.
    const held: pg.PoolClient[] = [];
    try {
      held.push(await requests.connect());
      held.push(await requests.connect());
      const started = Date.now();
      const refused = await requests.query('select 1').catch((err: unknown) => err);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(classifyDbError(refused)).toBe('busy');
    } finally {
      held.forEach((c) => c.release());
    }
    expect((await requests.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }]);
  });

  it('an outage is declared by the probe, logged once, and ended by its first answer', async () => {
    const down = postgresProbe('postgres://postgres@127.0.0.1:1/none');
    let answering = false;
    const probe = (timeoutMs: number) => (answering ? Promise.resolve() : down(timeoutMs));
    const availability = new DatabaseAvailability(log, probe, { heartbeatMs: 60_000, retryMs: 60_000 });
    const outages: unknown[] = [];
    availability.onDown((health) => outages.push(health));
    const before = logged.length;
    // A failure that does not look like an outage asks nothing.
    expect(availability.suspect(Object.assign(new Error('dup'), { code: '23505' }))).toBeNull();
    expect(availability.suspect(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }))).toBe(
      'unavailable',
    );
    await availability.check();
    await availability.check();
    expect(availability.current()).toMatchObject({
      state: 'down',
      reason: expect.stringMatching(/ECONNREFUSED/),
    });
    expect(outages).toHaveLength(1);
    expect(logged.slice(before)).toEqual([expect.stringMatching(/^database unavailable/)]);
    answering = true;
    await availability.check();
    expect(availability.current()).toEqual({ state: 'up' });
    expect(logged.slice(before)).toEqual([
      expect.stringMatching(/^database unavailable/),
      expect.stringMatching(/^database available again/),
    ]);
    availability.close();
    down.close();
  });

  it('the probe answers for a live server and stops waiting for one that does not answer', async () => {
    const live = postgresProbe(fresh.url);
    await expect(live(2000)).resolves.toBeUndefined();
    live.close();
    // A listener that accepts connections and never answers, as a frozen server does.
    const sockets: Socket[] = [];
    const silent = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    const frozen = postgresProbe(`postgres://postgres@127.0.0.1:${port}/none`);
    const started = Date.now();
    await expect(frozen(300)).rejects.toThrow(/no answer within/);
    expect(Date.now() - started).toBeLessThan(2000);
    frozen.close();
    sockets.forEach((s) => s.destroy());
    await new Promise((r) => silent.close(r));
  });
});
