import PgBoss from 'pg-boss';

/**
 * Delivery of extraction work. The durable state is the Extraction row itself (pending →
 * processing → completed | no_text | failed), and processing is idempotent, so a queue only has to
 * deliver an extraction id at least once.
 */
export interface ExtractionQueue {
  enqueue(extractionId: number): Promise<void>;
  /** Starts consuming: `handler` runs for each delivered id; a thrown error means "retry later". */
  start(handler: (extractionId: number) => Promise<void>): Promise<void>;
  stop(): Promise<void>;
  /** Resolves when nothing is queued or running in this process (tests, demo progress). */
  idle(): Promise<void>;
}

export const EXTRACTION_QUEUE = 'extract-document';

/**
 * pg-boss on the service's PostgreSQL: several worker processes (`npm run worker`) share the work;
 * a job whose worker died expires and is retried with backoff.
 */
export class PgBossQueue implements ExtractionQueue {
  private readonly boss: PgBoss;
  private started = false;
  private running = 0;
  private readonly workerIds: string[] = [];

  constructor(
    connectionString: string,
    private readonly opts: { consume: boolean; concurrency?: number },
  ) {
    this.boss = new PgBoss({
      connectionString,
      max: 4,
      schedule: false,
      supervise: opts.consume,
      application_name: 'pds-queue',
    });
    this.boss.on('error', () => undefined);
  }

  private async ensureStarted(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.boss.start();
    await this.boss.createQueue(EXTRACTION_QUEUE, {
      name: EXTRACTION_QUEUE,
      retryLimit: 5,
      retryDelay: 2,
      retryBackoff: true,
      expireInSeconds: 15 * 60,
    });
  }

  async enqueue(extractionId: number): Promise<void> {
    await this.ensureStarted();
    await this.boss.send(EXTRACTION_QUEUE, { extractionId }, { singletonKey: String(extractionId) });
    this.wake();
  }

  /** pg-boss sleeps a polling interval after every fetch; a worker that just finished a job, or a local enqueue, wakes them at once. */
  private wake(): void {
    for (const id of this.workerIds) this.boss.notifyWorker(id);
  }

  async start(handler: (extractionId: number) => Promise<void>): Promise<void> {
    await this.ensureStarted();
    if (!this.opts.consume) return;
    const workers = this.opts.concurrency ?? 1;
    for (let i = 0; i < workers; i++) {
      const id = await this.boss.work<{ extractionId: number }>(
        EXTRACTION_QUEUE,
        { batchSize: 1, pollingIntervalSeconds: 1 },
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
  }

  async idle(): Promise<void> {
    await this.ensureStarted();
    for (;;) {
      // Active jobs count too: a fetched job is active before its handler starts running here.
      const queued = await this.boss.getQueueSize(EXTRACTION_QUEUE, { before: 'completed' });
      if (queued === 0 && this.running === 0) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    await this.boss.stop({ graceful: true, wait: true, timeout: 10_000 });
  }
}

/**
 * The embedded mode's queue. PGlite is one in-process connection: pg-boss's own statements would
 * interleave with the ORM's open transactions on it, so the embedded server delivers ids in process
 * instead, behind the same interface. Durability comes from the Extraction rows: at start-up every
 * extraction left pending or processing is queued again (see `recoverUnfinished`).
 */
export class InProcessQueue implements ExtractionQueue {
  private readonly pending: number[] = [];
  private handler: ((id: number) => Promise<void>) | null = null;
  private active = 0;
  private stopped = false;
  private waiters: (() => void)[] = [];

  constructor(
    private readonly opts: { concurrency?: number; retryDelayMs?: number; retryLimit?: number } = {},
  ) {}

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

  private pump(): void {
    const limit = this.opts.concurrency ?? 1;
    while (this.handler && !this.stopped && this.active < limit && this.pending.length) {
      const id = this.pending.shift()!;
      this.active++;
      void this.run(id, 0);
    }
    if (this.active === 0 && this.pending.length === 0) this.waiters.splice(0).forEach((w) => w());
  }

  private async run(id: number, attempt: number): Promise<void> {
    try {
      await this.handler!(id);
    } catch {
      if (attempt + 1 < (this.opts.retryLimit ?? 5) && !this.stopped) {
        await new Promise((r) => setTimeout(r, (this.opts.retryDelayMs ?? 500) * 2 ** attempt));
        return this.run(id, attempt + 1);
      }
    }
    this.active--;
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
