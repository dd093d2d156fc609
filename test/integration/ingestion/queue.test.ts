import { PgBossQueue, type QueueLog } from '../../../src/ingestion/queue.js';
import { createFreshDatabase, type FreshDatabase } from '../../support/database.js';
import { describeWith } from '../../support/requirements.js';

const postgres = describeWith(
  !!process.env.DATABASE_URL,
  'pg-boss needs a PostgreSQL server (DATABASE_URL); PGlite runs the in-process queue',
);

const quiet: QueueLog = { info: () => {}, warn: () => {} };

/** The job queue as two processes use it: an API node queues, a separate `npm run worker` consumes. */
postgres('job queue across processes (pg-boss on PostgreSQL)', () => {
  let db: FreshDatabase;
  let producer: PgBossQueue;
  let consumer: PgBossQueue;
  const handled = new Map<number, number>();

  beforeAll(async () => {
    const base = new URL(process.env.DATABASE_URL!);
    base.pathname = '/postgres';
    db = await createFreshDatabase(base.toString(), `pds_queue_${process.pid}_${Date.now()}`);
    // The consumer's own poll is 30 s apart here, so only a NOTIFY can bring a job to it sooner.
    consumer = new PgBossQueue(db.url, { consume: true, concurrency: 1, log: quiet, pollingSeconds: 30 });
    producer = new PgBossQueue(db.url, { consume: false, log: quiet });
    await consumer.start(async (id) => {
      handled.set(id, performance.now());
    });
    await producer.enqueue(0);
    if (!(await settles(() => handled.has(0), 40_000))) throw new Error('the first job was not handled');
  }, 60_000);

  afterAll(async () => {
    await producer?.stop();
    await consumer?.stop();
    await db?.drop();
  });

  it('a job queued by another process wakes an idle consumer at once (LISTEN/NOTIFY), not at its next poll', async () => {
    const latencies: number[] = [];
    for (let id = 1; id <= 3; id++) {
      // Past the consumer's fetch after the previous job: it now sleeps its 30 s poll.
      await new Promise((r) => setTimeout(r, 300));
      const queued = performance.now();
      await producer.enqueue(id);
      // Well inside the consumer's 30 s poll: without the NOTIFY it would wait that out.
      expect(await settles(() => handled.has(id), 5_000)).toBe(true);
      latencies.push(handled.get(id)! - queued);
    }
    console.log(`job pickup across processes: ${latencies.map((ms) => ms.toFixed(1)).join(', ')} ms`);
  }, 30_000);
});

/** Whether `done` holds within `timeoutMs`. */
async function settles(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 5));
  }
  return true;
}
