import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { DatabaseAvailability } from '../../../src/db/availability.js';
import { PoolAcquireTimeout, runWithWorkSignal, watchPool } from '../../../src/db/pool-watch.js';
import { createFreshDatabase, type FreshDatabase } from '../../support/database.js';
import { describeWith } from '../../support/requirements.js';

/**
 * The watched node-postgres pool on a real server: a query of a request that ends is cancelled on
 * the server, a full pool is overload (not an outage), statement_timeout applies, and a refused
 * connection is an outage logged once. Skipped on PGlite: it is not node-postgres talking to a
 * server (one in-process connection, no cancel protocol, pg_sleep blocks the engine).
 */
const postgres = describeWith(!!process.env.DATABASE_URL, 'needs a PostgreSQL server (DATABASE_URL)');

const logged: string[] = [];
const log = {
  warn: (_: object, msg: string) => logged.push(msg),
  info: (_: object, msg: string) => logged.push(msg),
};

postgres('watched database pool', () => {
  let fresh: FreshDatabase;
  let pool: pg.Pool;
  let availability: DatabaseAvailability;

  beforeAll(async () => {
    fresh = await createFreshDatabase(process.env.DATABASE_URL!, `pds_pw_${randomBytes(5).toString('hex')}`);
    pool = new pg.Pool({ connectionString: fresh.url, max: 2 });
    availability = new DatabaseAvailability(log);
    // The acquire timeout bounds every connect, a fresh connection's too (the cancel below closes
    // one): 500 ms was once too little for a new connection while CI ran other suites beside this.
    watchPool(pool, { availability, acquireTimeoutMs: 2000, statementTimeoutMs: 1500 });
  });
  afterAll(async () => {
    await pool.end();
    await fresh.drop();
  });

  const running = async (marker: string) =>
    (
      await pool.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity where query like $1 and pid <> pg_backend_pid()`,
        [`%${marker}%`],
      )
    ).rows[0].n;

  it('cancels the running query on the server when its request signal aborts', async () => {
    const controller = new AbortController();
    const marker = `cancel_me_${randomBytes(4).toString('hex')}`;
    const started = Date.now();
    const query = runWithWorkSignal(controller.signal, () => pool.query(`select pg_sleep(1.2), '${marker}'`));
    await new Promise((r) => setTimeout(r, 300));
    controller.abort(new Error('client gone'));
    await expect(query).rejects.toMatchObject({ code: '57014' });
    // Well before the sleep would have ended: the server stopped it.
    expect(Date.now() - started).toBeLessThan(1200);
    expect(await running(marker)).toBe(0);
    expect(availability.current()).toEqual({ state: 'up' });
  });

  it("ends a request's statement at statement_timeout without declaring an outage", async () => {
    const request = new AbortController().signal;
    await expect(runWithWorkSignal(request, () => pool.query('select pg_sleep(5)'))).rejects.toMatchObject({
      code: '57014',
    });
    // Background work (jobs, migrations) is not bounded by the requests' timeout.
    await expect(pool.query('select pg_sleep(2)')).resolves.toBeDefined();
    expect(availability.current()).toEqual({ state: 'up' });
  });

  it('a full pool is overload: the wait is bounded and no outage is declared', async () => {
    // Held in the try, so that a failure to take the second cannot leave the first out of the pool
    // (pool.end() in afterAll would then wait for it forever).
    const held: pg.PoolClient[] = [];
    try {
      held.push(await pool.connect());
      held.push(await pool.connect());
      const started = Date.now();
      await expect(pool.query('select 1')).rejects.toBeInstanceOf(PoolAcquireTimeout);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(availability.current()).toEqual({ state: 'up' });
    } finally {
      held.forEach((c) => c.release());
    }
    // The late connection went back to the pool: the next query gets one.
    expect((await pool.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }]);
  });

  it('a refused connection is an outage, logged once, ended by the next success', async () => {
    const down = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:1/none', max: 1 });
    const own = new DatabaseAvailability(log);
    watchPool(down, { availability: own, acquireTimeoutMs: 2000, statementTimeoutMs: 0 });
    const before = logged.length;
    for (let i = 0; i < 3; i++)
      await expect(down.query('select 1')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(own.current()).toMatchObject({ state: 'down' });
    expect(logged.slice(before)).toEqual([expect.stringMatching(/^database unavailable/)]);
    own.noteSuccess();
    expect(own.current()).toEqual({ state: 'up' });
    expect(logged.slice(before)).toHaveLength(2);
    await down.end();
  });
});
