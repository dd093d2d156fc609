import { PgBoss } from 'pg-boss';

/**
 * Delivery of extraction work. The durable state is the Extraction row itself (pending →
 * processing → completed | no_text | failed), and processing is idempotent, so a queue only has to
 * deliver an extraction id at least once.
 */
export interface ExtractionQueue {
  /** Queues an id; rejects when the queue's database cannot be reached (the reconciler queues it later). */
  enqueue(extractionId: number): Promise<void>;
  /**
   * Starts consuming: `handler` runs for each delivered id; a thrown error means "retry later".
   * Never rejects: a queue that cannot start yet keeps trying in the background.
   */
  start(handler: (extractionId: number) => Promise<void>): Promise<void>;
  stop(): Promise<void>;
  /** Resolves when nothing is queued or running in this process (tests, demo progress). */
  idle(): Promise<void>;
  /** Of these ids, the ones with no job queued, waiting for a retry or running (reconciliation). */
  withoutLiveJob(extractionIds: number[]): Promise<number[]>;
  /** For /readyz: `down` with the reason while the queue cannot reach its database. */
  health(): QueueHealth;
  /**
   * The health, asked of the database afresh when it says `down`: a queue whose database answers
   * again is `up` now (consumption resumes at once), not at the end of its recovery's backoff.
   */
  check(): Promise<QueueHealth>;
  /** Jobs waiting (queued, retries coming due) and running, for /metrics; null when unknown now. */
  depth(): Promise<{ queued: number; active: number } | null>;
}

export type QueueHealth = { state: 'up' | 'starting' } | { state: 'down'; reason: string };

export interface QueueLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export const EXTRACTION_QUEUE = 'extract-document';
/** pg-boss keeps its tables in a schema of its own, beside the service's. */
export const QUEUE_SCHEMA = 'pds_jobs';

/**
 * How a job of a dead worker comes back: a live worker refreshes its job's heartbeat every
 * `heartbeatSeconds / 2`; the supervisor (every `superviseSeconds`, in every consuming process)
 * fails a job whose heartbeat is older than `heartbeatSeconds`, and the retry is fetched at once.
 * So a worker killed mid-job has its job running again within about heartbeat + supervise + retry
 * delay (~35 s with these values; JOB_HEARTBEAT_SECONDS sets the heartbeat, the supervisor runs
 * twice per heartbeat period). `expireSeconds` bounds a live handler that hangs.
 */
export interface JobTiming {
  heartbeatSeconds: number;
  superviseSeconds: number;
  expireSeconds: number;
  retryDelaySeconds: number;
  retryLimit: number;
}

export const JOB_TIMING: Readonly<JobTiming> = Object.freeze({
  heartbeatSeconds: 20,
  superviseSeconds: 10,
  // The extractor's own timeout is 60 s; a job claimed ahead waits at most one other document's
  // extraction for an extractor (src/ingestion/ingestion.ts), and reading the PDF and committing
  // the chunks come on top.
  expireSeconds: 180,
  retryDelaySeconds: 2,
  retryLimit: 5,
});

/** Waits between attempts to reach a database that did not answer: 1 s, doubling up to 30 s. */
export function backoffMs(attempt: number, maxMs = 30_000): number {
  return Math.min(maxMs, 1000 * 2 ** Math.min(attempt, 10));
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/** How long /readyz waits for the queue's database to answer a `down` queue's check. */
const CHECK_TIMEOUT_MS = 500;

function reasonOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * pg-boss on the service's PostgreSQL: several worker processes (`npm run worker`) share the work.
 * Every call into pg-boss is awaited and its failure handled; pg-boss's own background failures
 * arrive as `error` events, logged once per outage. When the database goes away, consumption
 * pauses and a probe with backoff resumes it when the database answers again; a start that fails
 * (database down) is retried the same way.
 */
export class PgBossQueue implements ExtractionQueue {
  private boss: PgBoss | null = null;
  private connecting: Promise<PgBoss> | null = null;
  private handler: ((extractionId: number) => Promise<void>) | null = null;
  private consuming = false;
  private recovering = false;
  private running = 0;
  private readonly workerIds: string[] = [];
  private readonly stopping = new AbortController();
  private healthState: QueueHealth = { state: 'starting' };
  private retryNow = new AbortController();
  private readonly timing: JobTiming;

  constructor(
    private readonly connectionString: string,
    private readonly opts: {
      consume: boolean;
      concurrency?: number;
      log: QueueLog;
      timing?: Partial<JobTiming>;
      /**
       * How often an idle consumer looks for jobs itself (default 1 s). A job queued anywhere wakes
       * the consumers at once by NOTIFY; the poll finds what no NOTIFY announces (retries coming
       * due, jobs of a dead worker failed by the supervisor) and covers an outage of the listener.
       */
      pollingSeconds?: number;
    },
  ) {
    this.timing = { ...JOB_TIMING, ...opts.timing };
  }

  health(): QueueHealth {
    return this.healthState;
  }

  async depth(): Promise<{ queued: number; active: number } | null> {
    const boss = this.boss;
    if (!boss || this.healthState.state === 'down') return null;
    // Counted now (the index idle() reads too), not pg-boss's queue statistics: its monitor
    // refreshes those only every monitorIntervalSeconds, so a scrape could see a finished job running.
    const { rows } = await boss.getDb().executeSql(
      `select count(*) filter (where state in ('created', 'retry'))::int as queued,
              count(*) filter (where state = 'active')::int as active
         from ${QUEUE_SCHEMA}.job where name = $1 and state in ('created', 'retry', 'active')`,
      [EXTRACTION_QUEUE],
    );
    return rows[0] as { queued: number; active: number };
  }

  async check(): Promise<QueueHealth> {
    const boss = this.boss;
    if (this.healthState.state !== 'down' || !boss) return this.healthState;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        boss.getDb().executeSql('select 1'),
        new Promise((_resolve, reject) => {
          timer = setTimeout(() => reject(new Error('no answer')), CHECK_TIMEOUT_MS);
        }),
      ]);
    } catch {
      return this.healthState;
    } finally {
      clearTimeout(timer);
    }
    this.markUp();
    // The recovery loop, if it is between attempts, tries now.
    this.retryNow.abort();
    this.retryNow = new AbortController();
    return this.healthState;
  }

  /** One outage, one log line: the first failure is logged, the rest only keep the state. */
  private markDown(err: unknown): void {
    if (this.healthState.state !== 'down') {
      this.opts.log.warn(
        { err, queue: EXTRACTION_QUEUE },
        'job queue cannot reach its database; consumption pauses and resumes when it answers',
      );
    }
    this.healthState = { state: 'down', reason: reasonOf(err) };
  }

  private markUp(): void {
    if (this.healthState.state === 'down')
      this.opts.log.info({ queue: EXTRACTION_QUEUE }, 'job queue is back');
    this.healthState = { state: 'up' };
  }

  private async connect(): Promise<PgBoss> {
    const boss = new PgBoss({
      connectionString: this.connectionString,
      schema: QUEUE_SCHEMA,
      max: 4,
      connectionTimeoutMillis: 5000,
      schedule: false,
      supervise: this.opts.consume,
      superviseIntervalSeconds: this.timing.superviseSeconds,
      monitorIntervalSeconds: this.timing.superviseSeconds,
      application_name: 'pds-queue',
      // A consumer holds one more connection, LISTENing for jobs queued by other processes (an API
      // node's uploads, the reconciler): without it a separate `npm run worker` found a job only
      // at its next poll, up to a second later. pg-boss falls back to polling when it cannot listen.
      useListenNotify: this.opts.consume,
    });
    // Without a listener an 'error' event would end the process: pg-boss reports here what fails
    // in its background loops (polling, supervision, settling a job).
    boss.on('error', (err) => this.onBackgroundError(err));
    // Its warnings are advice (slow queries, backlogs) but one: no listener means polling only.
    boss.on('warning', (warning: { message: string; data?: { type?: string } }) => {
      if (warning.data?.type === 'listen_notify_unavailable') {
        this.opts.log.warn({ queue: EXTRACTION_QUEUE }, warning.message);
      }
    });
    try {
      await boss.start();
      const settings = {
        retryLimit: this.timing.retryLimit,
        retryDelay: this.timing.retryDelaySeconds,
        retryBackoff: true,
        retryDelayMax: 60,
        expireInSeconds: this.timing.expireSeconds,
        heartbeatSeconds: this.timing.heartbeatSeconds,
        // Queueing a job sends a NOTIFY in its transaction, which wakes every listening consumer.
        notify: true,
      };
      // At most one job waiting per extraction: queueing an id again while one waits is a no-op.
      await boss.createQueue(EXTRACTION_QUEUE, { policy: 'short', ...settings });
      // A queue made by an earlier start keeps its settings unless they are written again (a changed
      // JOB_HEARTBEAT_SECONDS applies to the jobs queued from then on).
      await boss.updateQueue(EXTRACTION_QUEUE, settings);
    } catch (err) {
      await boss.stop({ graceful: false, close: true }).catch(() => undefined);
      throw err;
    }
    return boss;
  }

  /** The started pg-boss, starting it when needed (one attempt shared by concurrent callers). */
  private async ready(): Promise<PgBoss> {
    if (this.boss) return this.boss;
    if (this.stopping.signal.aborted) throw new Error('the job queue is stopped');
    this.connecting ??= this.connect()
      .then((boss) => {
        if (this.stopping.signal.aborted) {
          void boss.stop({ graceful: false, close: true }).catch(() => undefined);
          throw new Error('the job queue is stopped');
        }
        this.boss = boss;
        this.markUp();
        return boss;
      })
      .catch((err: unknown) => {
        this.markDown(err);
        throw err;
      })
      .finally(() => {
        this.connecting = null;
      });
    return this.connecting;
  }

  async enqueue(extractionId: number): Promise<void> {
    const boss = await this.ready();
    await boss.send(EXTRACTION_QUEUE, { extractionId }, { singletonKey: String(extractionId) });
    if (!this.opts.consume) this.markUp();
    this.wake();
  }

  /** pg-boss sleeps a polling interval after every fetch; a worker that just finished a job, or a local enqueue, wakes them at once. */
  private wake(): void {
    if (!this.boss) return;
    for (const id of this.workerIds) this.boss.notifyWorker(id);
  }

  async start(handler: (extractionId: number) => Promise<void>): Promise<void> {
    this.handler = handler;
    if (!this.opts.consume) return;
    try {
      await this.consume();
    } catch {
      // Logged by markDown; the recovery loop keeps trying until the database answers.
      this.recover();
    }
  }

  private async consume(): Promise<void> {
    const boss = await this.ready();
    if (this.consuming || !this.handler) return;
    const handler = this.handler;
    const workers = this.opts.concurrency ?? 1;
    const polling = this.opts.pollingSeconds ?? 1;
    this.consuming = true;
    try {
      for (let i = 0; i < workers; i++) {
        const id = await boss.work<{ extractionId: number }>(
          EXTRACTION_QUEUE,
          {
            batchSize: 1,
            pollingIntervalSeconds: polling,
            // pg-boss polls every 30 s while it listens: too late for a retry coming due (2 s).
            notifyPollingIntervalSeconds: polling,
          },
          async (jobs) => {
            this.running++;
            try {
              for (const job of jobs) await handler(job.data.extractionId);
            } finally {
              this.running--;
              if (jobs.length) this.wake();
            }
          },
        );
        this.workerIds.push(id);
      }
    } catch (err) {
      await this.pause();
      throw err;
    }
  }

  /** Stops fetching (the workers would only fail every poll) until the database answers again. */
  private async pause(): Promise<void> {
    const boss = this.boss;
    this.consuming = false;
    this.workerIds.length = 0;
    if (boss) await boss.offWork(EXTRACTION_QUEUE, { wait: false }).catch(() => undefined);
  }

  private onBackgroundError(err: Error): void {
    this.markDown(err);
    if (this.opts.consume && this.consuming && !this.stopping.signal.aborted) {
      void this.pause().then(() => this.recover());
    }
  }

  /** Probes the database with backoff; when it answers, consumption resumes. One loop at a time. */
  private recover(): void {
    if (this.recovering || this.stopping.signal.aborted) return;
    this.recovering = true;
    void (async () => {
      for (let attempt = 0; !this.stopping.signal.aborted; attempt++) {
        await sleep(
          backoffMs(attempt, 15_000),
          AbortSignal.any([this.stopping.signal, this.retryNow.signal]),
        );
        if (this.stopping.signal.aborted) break;
        try {
          if (this.boss) await this.boss.getDb().executeSql('select 1');
          await this.consume();
          this.markUp();
          break;
        } catch (err) {
          this.markDown(err);
        }
      }
      this.recovering = false;
    })();
  }

  async withoutLiveJob(extractionIds: number[]): Promise<number[]> {
    if (!extractionIds.length) return [];
    const boss = await this.ready();
    const { rows } = await boss
      .getDb()
      .executeSql(
        `select singleton_key from ${QUEUE_SCHEMA}.job where name = $1 and state in ('created', 'retry', 'active') and singleton_key = any($2::text[])`,
        [EXTRACTION_QUEUE, extractionIds.map(String)],
      );
    const live = new Set((rows as { singleton_key: string }[]).map((r) => Number(r.singleton_key)));
    return extractionIds.filter((id) => !live.has(id));
  }

  async idle(): Promise<void> {
    const boss = await this.ready();
    for (;;) {
      // Active jobs count too: a fetched job is active before its handler starts running here.
      const { rows } = await boss
        .getDb()
        .executeSql(
          `select count(*)::int as n from ${QUEUE_SCHEMA}.job where name = $1 and state in ('created', 'retry', 'active')`,
          [EXTRACTION_QUEUE],
        );
      if ((rows[0] as { n: number }).n === 0 && this.running === 0) return;
      // Often: the bench times a corpus by when this returns (a slower poll was a visible share of a
      // short run), and the count is an index lookup.
      await sleep(20);
    }
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.connecting?.catch(() => undefined);
    const boss = this.boss;
    this.boss = null;
    if (boss) await boss.stop({ graceful: true, close: true, timeout: 10_000 }).catch(() => undefined);
  }
}

/**
 * The embedded mode's queue. PGlite is one in-process connection: pg-boss's own statements would
 * interleave with the ORM's open transactions on it, so the embedded server delivers ids in process
 * instead, behind the same interface. Durability comes from the Extraction rows: the reconciler
 * queues every extraction left pending or processing again (see `createIngestion`).
 */
export class InProcessQueue implements ExtractionQueue {
  private readonly pending: number[] = [];
  private readonly activeIds = new Set<number>();
  private handler: ((id: number) => Promise<void>) | null = null;
  private active = 0;
  private stopped = false;
  private waiters: (() => void)[] = [];

  constructor(
    private readonly opts: { concurrency?: number; retryDelayMs?: number; retryLimit?: number } = {},
  ) {}

  health(): QueueHealth {
    return { state: 'up' };
  }

  check(): Promise<QueueHealth> {
    return Promise.resolve(this.health());
  }

  depth(): Promise<{ queued: number; active: number }> {
    return Promise.resolve({ queued: this.pending.length, active: this.active });
  }

  enqueue(extractionId: number): Promise<void> {
    if (!this.pending.includes(extractionId)) this.pending.push(extractionId);
    this.pump();
    return Promise.resolve();
  }

  start(handler: (extractionId: number) => Promise<void>): Promise<void> {
    this.handler = handler;
    this.pump();
    return Promise.resolve();
  }

  withoutLiveJob(extractionIds: number[]): Promise<number[]> {
    return Promise.resolve(
      extractionIds.filter((id) => !this.pending.includes(id) && !this.activeIds.has(id)),
    );
  }

  private pump(): void {
    const limit = this.opts.concurrency ?? 1;
    while (this.handler && !this.stopped && this.active < limit && this.pending.length) {
      const id = this.pending.shift()!;
      this.active++;
      this.activeIds.add(id);
      void this.run(id, 0);
    }
    if (this.active === 0 && this.pending.length === 0) this.waiters.splice(0).forEach((w) => w());
  }

  private async run(id: number, attempt: number): Promise<void> {
    try {
      await this.handler!(id);
    } catch {
      if (attempt + 1 < (this.opts.retryLimit ?? 5) && !this.stopped) {
        await sleep((this.opts.retryDelayMs ?? 500) * 2 ** attempt);
        return this.run(id, attempt + 1);
      }
    }
    this.active--;
    this.activeIds.delete(id);
    this.pump();
  }

  idle(): Promise<void> {
    if (this.active === 0 && this.pending.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.pending.length = 0;
    if (this.active > 0) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }
}
