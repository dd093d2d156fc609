import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { EXTRACTOR_ROLE, extractPages, type ExtractReply, type ExtractRequest } from './extract.worker.js';

export type ExtractionOutcome = 'completed' | 'no_text' | 'failed';

export interface ExtractionResult {
  status: ExtractionOutcome;
  method: string;
  extractorVersion: string;
  pageCount: number;
  pages: { pageNumber: number; text: string }[];
  rawTextLength: number;
  /** Readable reason for `failed`: corrupt, encrypted, timed out, out of memory. */
  error: string | null;
}

export interface ExtractOptions {
  /** Wall-clock budget of one document once a worker has it; the worker is killed when it runs out. */
  timeoutMs?: number;
  /** Heap cap of the worker thread (V8 old generation). */
  maxMemoryMb?: number;
  /** Documents claiming more pages fail without being read. */
  maxPages?: number;
}

const require = createRequire(import.meta.url);
const UNPDF_VERSION = (
  JSON.parse(readFileSync(join(dirname(require.resolve('unpdf')), '..', 'package.json'), 'utf8')) as {
    version: string;
  }
).version;
export const EXTRACTION_METHOD = `unpdf-${UNPDF_VERSION}`;
/** Bump the suffix when the text assembled from pdf.js changes (line ends, spacing). */
export const EXTRACTOR_VERSION = `${EXTRACTION_METHOD}+pages-v1`;

const DEFAULTS = { timeoutMs: 60_000, maxMemoryMb: 512, maxPages: 2_000 };

/** A page needs a few letters or digits to count as text; scanned pages yield none. */
const USABLE = /[\p{L}\p{N}]{2}/u;

function completed(pages: string[], pageCount: number): ExtractionResult {
  const list = pages.map((text, i) => ({ pageNumber: i + 1, text }));
  return {
    status: list.some((p) => USABLE.test(p.text)) ? 'completed' : 'no_text',
    method: EXTRACTION_METHOD,
    extractorVersion: EXTRACTOR_VERSION,
    pageCount,
    pages: list,
    rawTextLength: pages.reduce((n, p) => n + p.length, 0),
    error: null,
  };
}

function failed(error: string): ExtractionResult {
  return {
    status: 'failed',
    method: EXTRACTION_METHOD,
    extractorVersion: EXTRACTOR_VERSION,
    pageCount: 0,
    pages: [],
    rawTextLength: 0,
    error,
  };
}

/** pdf.js names its exceptions; turn them into reasons a person (or a model) can act on. */
function reason(name: string, message: string): string {
  if (name === 'PasswordException') return 'encrypted PDF (password required)';
  if (name === 'TooManyPagesError') return `too many pages: ${message}`;
  if (name === 'InvalidPDFException') return `corrupt PDF: ${message.replace(/\.$/, '')}`;
  return `corrupt PDF: ${name === 'Error' ? '' : `${name}: `}${message.slice(0, 300)}`;
}

/**
 * In-process extraction: the benchmark's "raw unpdf" baseline. A hostile PDF can hang this or
 * take the process down with an unhandled rejection; production code uses `extractPdf`.
 */
export async function extractPdfDirect(
  bytes: Uint8Array,
  opts: Pick<ExtractOptions, 'maxPages'> = {},
): Promise<ExtractionResult> {
  try {
    const { pages, pageCount } = await extractPages(
      new Uint8Array(bytes),
      opts.maxPages ?? DEFAULTS.maxPages,
    );
    return completed(pages, pageCount);
  } catch (err) {
    const { name, message } = err instanceof Error ? err : { name: 'Error', message: String(err) };
    return failed(reason(name, message));
  }
}

/**
 * From `dist/` the compiled `.js` sits beside this file. From source (jest runs the `.ts` files
 * through swc, and a Worker cannot use jest's transform) Node loads the `.ts` worker itself with
 * its built-in type stripping, which is why the worker file imports nothing from the project.
 */
function workerScript(): URL {
  for (const name of ['./extract.worker.js', './extract.worker.ts']) {
    const url = new URL(name, import.meta.url);
    if (!existsSync(fileURLToPath(url))) continue;
    if (name.endsWith('.ts') && !process.features.typescript) break;
    return url;
  }
  throw new Error('PDF extraction worker not found: build the project (npm run build) or use Node >= 22.18');
}

interface Job {
  request: ExtractRequest;
  timeoutMs: number;
  resolve: (result: ExtractionResult) => void;
}

/** Documents a warm thread serves before it is replaced, so pdf.js leaks cannot accumulate. */
const JOBS_PER_THREAD = 200;
/** A thread idle this long is stopped; the next document starts a new one. */
const IDLE_MS = 15_000;

/**
 * One warm worker thread (a cold one costs a pdf.js load per document). It runs one document at a
 * time; a timeout, a crash, running out of memory or an escaped rejection ends the thread, fails
 * only the document in hand, and the next document gets a fresh thread.
 */
class ExtractorThread {
  private worker: Worker | null = null;
  private job: Job | null = null;
  private timer: NodeJS.Timeout | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private served = 0;

  constructor(
    private readonly maxMemoryMb: number,
    /** Called whenever the thread becomes free for the next job. */
    private readonly onFree: () => void,
  ) {}

  get busy(): boolean {
    return this.job !== null;
  }

  run(job: Job): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.job = job;
    let worker: Worker;
    try {
      worker = this.worker ?? this.start();
    } catch (err) {
      this.fail(`extractor unavailable: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    worker.ref();
    this.timer = setTimeout(() => this.fail(`timed out after ${job.timeoutMs}ms`), job.timeoutMs);
    worker.postMessage(job.request, [job.request.bytes.buffer as ArrayBuffer]);
  }

  private start(): Worker {
    const worker = new Worker(workerScript(), {
      workerData: { role: EXTRACTOR_ROLE },
      resourceLimits: { maxOldGenerationSizeMb: this.maxMemoryMb },
    });
    // Events of a thread already discarded (terminated after a timeout) must not touch the next job.
    worker.on('message', (reply: ExtractReply) => {
      if (this.worker !== worker || !this.job || reply.id !== this.job.request.id) return;
      if (reply.ok) this.finish(completed(reply.pages, reply.pageCount));
      else if (reply.fatal) this.fail(reason(reply.name, reply.message));
      else this.finish(failed(reason(reply.name, reply.message)));
    });
    worker.on('error', (err: Error & { code?: string }) => {
      if (this.worker !== worker) return;
      this.fail(
        err.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? 'worker out of memory'
          : `extractor crashed: ${err.message}`,
      );
    });
    worker.on('exit', (code) => {
      if (this.worker !== worker) return;
      this.fail(`extractor exited with code ${code}`);
    });
    this.worker = worker;
    this.served = 0;
    return worker;
  }

  /** Ends the job with a result and keeps the thread warm for the next one. */
  private finish(result: ExtractionResult): void {
    const job = this.settle();
    if (!job) return;
    if (++this.served >= JOBS_PER_THREAD) void this.stop();
    else if (this.worker) {
      this.worker.unref();
      this.idleTimer = setTimeout(() => void this.stop(), IDLE_MS).unref();
    }
    job.resolve(result);
    this.onFree();
  }

  /** Ends the job as failed and discards the thread: its state can no longer be trusted. */
  private fail(error: string): void {
    const job = this.settle();
    void this.stop();
    if (!job) return;
    job.resolve(failed(error));
    this.onFree();
  }

  private settle(): Job | null {
    const job = this.job;
    this.job = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    return job;
  }

  async stop(): Promise<void> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }
}

/** A few threads and a queue; one pool per memory cap, since the cap is fixed when a thread starts. */
class ExtractorPool {
  private readonly threads: ExtractorThread[];
  private readonly queue: Job[] = [];

  constructor(size: number, maxMemoryMb: number) {
    this.threads = Array.from(
      { length: size },
      () => new ExtractorThread(maxMemoryMb, () => this.dispatch()),
    );
  }

  submit(job: Job): void {
    this.queue.push(job);
    this.dispatch();
  }

  private dispatch(): void {
    for (const thread of this.threads) {
      if (thread.busy) continue;
      const job = this.queue.shift();
      if (!job) return;
      thread.run(job);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.stop()));
  }
}

/** Two threads: the machines have two cores, and the queue above feeds at most this many at once. */
const POOL_SIZE = 2;
const pools = new Map<number, ExtractorPool>();
let nextId = 1;

/**
 * Extracts per-page text in a worker thread with a timeout and a heap cap, so a corrupt,
 * encrypted or hostile PDF fails its own extraction and never crashes or hangs the process.
 * Never rejects: every failure is a `failed` result with a readable `error`.
 */
export function extractPdf(bytes: Uint8Array, opts: ExtractOptions = {}): Promise<ExtractionResult> {
  const maxMemoryMb = opts.maxMemoryMb ?? DEFAULTS.maxMemoryMb;
  let pool = pools.get(maxMemoryMb);
  if (!pool) {
    pool = new ExtractorPool(POOL_SIZE, maxMemoryMb);
    pools.set(maxMemoryMb, pool);
  }
  const request: ExtractRequest = {
    id: nextId++,
    bytes: new Uint8Array(bytes),
    maxPages: opts.maxPages ?? DEFAULTS.maxPages,
  };
  return new Promise((resolve) => {
    pool.submit({ request, timeoutMs: opts.timeoutMs ?? DEFAULTS.timeoutMs, resolve });
  });
}

/** Stops every extraction thread (graceful shutdown, end of a test file). */
export async function closeExtractors(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.close()));
}
