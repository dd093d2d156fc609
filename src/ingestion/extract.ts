import { spawn, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { EXTRACTION_DEFAULTS, MIN_EXTRACT_MEMORY_MB } from '../config.js';
import type { ChunkDraft } from '../search/text/chunk.js';
import type { ChildReply, ChildRequest } from './extract.child.js';
import { dataLimitsKb } from './memory-limit.js';
import type { OcrSettings } from './ocr.js';
import {
  completed,
  errorFields,
  extractPages,
  failed,
  isAllocationFailure,
  reason,
  type ExtractionResult,
  type TextLimits,
} from './pdf-text.js';

export type { ExtractionResult } from './pdf-text.js';

export interface ExtractOptions extends Partial<TextLimits> {
  /** Wall-clock budget of one document once an extractor has it; the extractor is killed when it runs out. */
  timeoutMs?: number;
  /**
   * Memory of the extractor process, enforced by the operating system (RLIMIT_DATA: heap, buffers
   * and everything else it allocates). Past it, allocations are refused and the extractor dies.
   */
  maxMemoryMb?: number;
  /** Normalize and chunk in the extractor too; the result then carries `chunks` and no page texts. */
  chunk?: boolean;
  /** Extractor processes that may run at once (default 2: one per core here). */
  poolSize?: number;
  /** Recognition of pages without a text layer; unset fields take EXTRACTION_DEFAULTS.ocr. */
  ocr?: Partial<OcrSettings>;
}

function limitsOf(opts: ExtractOptions): TextLimits {
  return {
    maxPages: opts.maxPages ?? EXTRACTION_DEFAULTS.maxPages,
    maxObjects: opts.maxObjects ?? EXTRACTION_DEFAULTS.maxObjects,
    maxTextChars: opts.maxTextChars ?? EXTRACTION_DEFAULTS.maxTextChars,
  };
}

/**
 * In-process extraction: the benchmark's "raw unpdf" baseline. A hostile PDF can hang this or
 * take the process down; production code uses `extractPdf`.
 */
export async function extractPdfDirect(
  bytes: Uint8Array,
  opts: Pick<ExtractOptions, 'maxPages' | 'maxObjects' | 'maxTextChars'> = {},
): Promise<ExtractionResult> {
  try {
    const { pages, pageCount } = await extractPages(new Uint8Array(bytes), limitsOf(opts));
    return completed(pages, pageCount);
  } catch (err) {
    const { name, message } = errorFields(err);
    return failed(reason(name, message));
  }
}

/**
 * How to start an extractor. From `dist/` the compiled `.js` sits beside this file. From source
 * (jest runs the `.ts` files through swc, which a child process cannot use) Node runs the `.ts`
 * sources itself, transforming the types, with source-hooks.ts resolving their `.js` imports.
 */
function childCommand(): string[] {
  const js = fileURLToPath(new URL('./extract.entry.js', import.meta.url));
  if (existsSync(js)) return [js];
  const ts = fileURLToPath(new URL('./extract.entry.ts', import.meta.url));
  const hooks = fileURLToPath(new URL('./source-hooks.ts', import.meta.url));
  if (!existsSync(ts) || !process.features.typescript) {
    throw new Error('PDF extractor not found: build the project (npm run build) or use Node >= 24');
  }
  return ['--experimental-transform-types', '--no-warnings', '--import', hooks, ts];
}

/**
 * V8's heap settings for an extractor of `maxMemoryMb`: its old space capped at three quarters of
 * the memory limit, and grown by a factor of 4 between full collections (`--heap-growing-percent`,
 * what V8 uses for a large heap).
 *
 * The growth: V8 sizes its heap by its own cap, and under about 2 GB it treats the heap as
 * memory-constrained and grows it by a factor near 1.4, which for pdf.js meant a full collection
 * every few documents. With the cap at the memory limit (512 MB, as it was), V8's background
 * threads (concurrent marking) took 3.1-3.4 s of CPU over eight passes of the bench's realistic
 * corpus through one warm extractor, and a pass 1.0-1.1 s of wall time; with these settings 1.3-1.4
 * s and 0.82-1.0 s (raw unpdf in the bench's process: 0.75-0.9 s a pass; `/proc` per thread).
 *
 * The cap: V8 knows nothing of RLIMIT_DATA (below), so its own limit has to make it collect
 * before the system refuses it memory, which crashes it (V8 "Check failed"). A process keeping
 * 30% or 55% of 256 or 512 MB live while it makes garbage runs to its end under these settings, as
 * under the old ones; with the same growth and the cap at the whole limit, or with a 2 GB cap (tried
 * first), it crashes (test/integration/extract/extract-heap.test.ts). The quarter left goes to the
 * young generation, ArrayBuffers and malloc. A heap that outgrows the cap ends the process with
 * V8's "out of memory", which the pool reports as the memory failure it is.
 *
 * The young generation: V8 sizes it apart from the old space, by default up to as much again as
 * the old space's cap (a heap limit of 384 MB for a 192 MB cap), so a busy young generation could
 * take the quarter and more, and the marker's own allocations were then refused ("Fatal process
 * out of memory: Worklist::Segment::Create", in one run of five at 256 MB with 55% live). Its
 * semi-spaces are capped at 1/64 of the limit, three of which (two semi-spaces and the space for
 * large new objects) take 3/64.
 */
export function extractorHeapFlags(maxMemoryMb: number): string[] {
  return [
    `--max-old-space-size=${Math.floor((maxMemoryMb * 3) / 4)}`,
    `--max-semi-space-size=${Math.max(1, Math.floor(maxMemoryMb / 64))}`,
    '--heap-growing-percent=300',
  ];
}

/**
 * The `/bin/sh` arguments that run Node with `nodeArgs` the way an extractor runs:
 * `sh -c 'ulimit -d KB; exec node ...'`. RLIMIT_DATA bounds every private writable mapping (V8's
 * heap, ArrayBuffers, malloc), which is what pdf.js's decompressed streams live in. RLIMIT_AS is
 * not usable: V8 and WebAssembly reserve address space far beyond what they ever touch. V8's own
 * heap is capped below it (`heapFlags`, extractorHeapFlags unless a test says otherwise), so a heap
 * overflow ends the process the same way. The limits set add V8's code ranges to `maxMemoryMb`
 * (memory-limit.ts: the system charges them in full from the start on Node 24).
 */
export function memoryLimitedNode(
  maxMemoryMb: number,
  nodeArgs: string[],
  heapFlags = extractorHeapFlags(maxMemoryMb),
): string[] {
  const limits = dataLimitsKb(maxMemoryMb);
  return [
    '-c',
    'ulimit -S -d "$1" && ulimit -H -d "$2" || exit 97; shift 2; exec "$@"',
    'pds-extractor',
    String(limits.soft),
    String(limits.hard),
    process.execPath,
    ...heapFlags,
    ...nodeArgs,
  ];
}

/**
 * Extractors run at this niceness (0 is normal, 19 the lowest): PDF work yields the CPU to request
 * handling in the same machine whenever both want it.
 */
export const EXTRACTOR_NICENESS = 10;

export function spawnExtractor(maxMemoryMb: number): ChildProcess {
  // The extractor's one argument is this process's pid: whose orphan it would be (extract.entry.ts).
  const child = spawn('/bin/sh', memoryLimitedNode(maxMemoryMb, [...childCommand(), String(process.pid)]), {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    serialization: 'advanced',
  });
  // The shell execs Node, so the niceness set on this pid is the extractor's own.
  if (child.pid !== undefined) {
    try {
      setPriority(child.pid, EXTRACTOR_NICENESS);
    } catch {
      // A platform that refuses it runs the extractor at normal priority.
    }
  }
  return child;
}

/** What a dead extractor's exit says about why it died. */
const OUT_OF_MEMORY = /out of memory|allocation failed|bad_alloc|cannot allocate memory|OOM/i;

interface Job {
  request: ChildRequest;
  /** The chunk batches received so far (`chunk` requests). */
  chunks: ChunkDraft[];
  /** What the extractor last said it was doing (recognizing page N), for a timeout's reason. */
  progress: string | null;
  timeoutMs: number;
  resolve: (result: ExtractionResult) => void;
}

/** Documents a warm extractor serves at most: a backstop, since memory decides first (below). */
export const MAX_JOBS_PER_EXTRACTOR = 10_000;

/**
 * Whether a warm extractor is replaced after a document. Memory decides: the extractor is
 * replaced once its resident memory after a document exceeds what it held after its first one
 * by more than a quarter of its limit (a leak, or a heap that one large document grew and would
 * keep), and after MAX_JOBS_PER_EXTRACTOR documents in any case. It used to be replaced after
 * every 200 documents, but pdf.js's code takes several hundred documents to reach full speed in a
 * process (the bench's realistic corpus of 97 PDFs: 1.5 s in a fresh extractor, 1.15-1.5 s up to
 * its 200th document, about 1.0 s after 800), while one extractor's memory stayed at 118-126 MB
 * over 2,000 documents: the count cost extraction time and guarded against no growth seen.
 */
export function shouldRetire(
  served: number,
  rssBytes: number,
  baselineBytes: number,
  maxMemoryMb: number,
): boolean {
  return served >= MAX_JOBS_PER_EXTRACTOR || rssBytes - baselineBytes > (maxMemoryMb * 1024 * 1024) / 4;
}

let started = 0;

/** Extractor processes started by this process so far (tests: whether a warm one was kept). */
export function extractorsStarted(): number {
  return started;
}

/** An extractor idle this long is stopped; the next document starts a new one. */
const IDLE_MS = 15_000;

/**
 * One warm extractor process (a cold one costs a Node start and a pdf.js load per document). It
 * runs one document at a time; a timeout, a crash, running out of memory or an escaped rejection
 * ends the process, fails only the document in hand, and the next document gets a fresh one.
 */
class Extractor {
  private child: ChildProcess | null = null;
  private job: Job | null = null;
  private timer: NodeJS.Timeout | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private served = 0;
  /** Resident memory after this process's first document: what later ones are compared with. */
  private baselineRss = 0;
  /** The end of the extractor's stderr: V8 and the C++ runtime say "out of memory" there. */
  private stderr = '';

  constructor(
    private readonly maxMemoryMb: number,
    /** Called whenever the extractor becomes free for the next job. */
    private readonly onFree: () => void,
  ) {}

  get busy(): boolean {
    return this.job !== null;
  }

  private get exceeded(): string {
    return `exceeded memory: the extractor's ${this.maxMemoryMb} MB limit`;
  }

  run(job: Job): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.job = job;
    let child: ChildProcess;
    try {
      child = this.child ?? this.start();
    } catch (err) {
      this.fail(`extractor unavailable: ${errorFields(err).message}`);
      return;
    }
    child.ref();
    this.timer = setTimeout(
      () => this.fail(`timed out after ${job.timeoutMs}ms${job.progress ? ` (${job.progress})` : ''}`),
      job.timeoutMs,
    );
    child.send(job.request);
  }

  private start(): ChildProcess {
    const child = spawnExtractor(this.maxMemoryMb);
    this.stderr = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (text: string) => {
      this.stderr = (this.stderr + text).slice(-4096);
    });
    // Events of an extractor already discarded (killed after a timeout) must not touch the next job.
    child.on('message', (reply: ChildReply) => {
      if (this.child !== child || !this.job || reply.id !== this.job.request.id) return;
      if ('progress' in reply) {
        this.job.progress = reply.progress;
        return;
      }
      if ('chunks' in reply) {
        this.job.chunks.push(...reply.chunks);
        return;
      }
      if ('result' in reply) {
        const { result, rss } = reply;
        return this.finish(this.job.request.chunk ? { ...result, chunks: this.job.chunks } : result, rss);
      }
      const { name, message } = reply.fatal;
      this.fail(isAllocationFailure(name, message) ? this.exceeded : reason(name, message));
    });
    child.on('error', (err) => {
      if (this.child === child) this.fail(`extractor unavailable: ${err.message}`);
    });
    // 'close', not 'exit': by then stderr has been read to its end.
    child.on('close', (code, signal) => {
      if (this.child !== child) return;
      if (code === 97) return this.fail('extractor unavailable: the memory limit could not be set');
      const memory = OUT_OF_MEMORY.test(this.stderr) || signal === 'SIGABRT' || signal === 'SIGTRAP';
      this.fail(memory ? this.exceeded : `extractor exited (${signal ?? `code ${code}`})`);
    });
    this.child = child;
    this.served = 0;
    started++;
    return child;
  }

  /** Ends the job with a result and keeps the extractor warm for the next one, unless it should retire. */
  private finish(result: ExtractionResult, rss: number): void {
    const job = this.settle();
    if (!job) return;
    if (++this.served === 1) this.baselineRss = rss;
    if (shouldRetire(this.served, rss, this.baselineRss, this.maxMemoryMb)) this.stop();
    else if (this.child) {
      this.child.unref();
      this.idleTimer = setTimeout(() => this.stop(), IDLE_MS).unref();
    }
    job.resolve(result);
    this.onFree();
  }

  /** Ends the job as failed and discards the extractor: its state can no longer be trusted. */
  private fail(error: string): void {
    const job = this.settle();
    this.stop();
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

  stop(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    const child = this.child;
    this.child = null;
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

/** A few extractors and a queue; one pool per memory limit, since the limit is fixed when a process starts. */
class ExtractorPool {
  private readonly extractors: Extractor[];
  private readonly queue: Job[] = [];

  constructor(size: number, maxMemoryMb: number) {
    this.extractors = Array.from({ length: size }, () => new Extractor(maxMemoryMb, () => this.dispatch()));
  }

  submit(job: Job): void {
    this.queue.push(job);
    this.dispatch();
  }

  private dispatch(): void {
    for (const extractor of this.extractors) {
      if (extractor.busy) continue;
      const job = this.queue.shift();
      if (!job) return;
      extractor.run(job);
    }
  }

  close(): void {
    for (const e of this.extractors) e.stop();
  }
}

/** Two extractors by default: the machines have two cores (EXTRACTION_CONCURRENCY; the queue claims one job more, which waits here). */
const POOL_SIZE = 2;
/** One pool per memory limit and size, since the limit is fixed when a process starts. */
const pools = new Map<string, ExtractorPool>();
let nextId = 1;

/**
 * Extracts per-page text in a separate process with a timeout, an operating-system memory limit
 * and limits on pages, objects and text, so a corrupt, encrypted or hostile PDF fails its own
 * extraction and never crashes, hangs or bloats this process. Never rejects: every failure is a
 * `failed` result with a readable `error`.
 */
export function extractPdf(bytes: Uint8Array, opts: ExtractOptions = {}): Promise<ExtractionResult> {
  const maxMemoryMb = Math.max(MIN_EXTRACT_MEMORY_MB, opts.maxMemoryMb ?? EXTRACTION_DEFAULTS.maxMemoryMb);
  const size = opts.poolSize ?? POOL_SIZE;
  let pool = pools.get(`${maxMemoryMb}:${size}`);
  if (!pool) {
    pool = new ExtractorPool(size, maxMemoryMb);
    pools.set(`${maxMemoryMb}:${size}`, pool);
  }
  const request: ChildRequest = {
    id: nextId++,
    bytes: new Uint8Array(bytes),
    limits: limitsOf(opts),
    chunk: opts.chunk ?? false,
    ocr: { ...EXTRACTION_DEFAULTS.ocr, ...opts.ocr },
  };
  return new Promise((resolve) => {
    pool.submit({
      request,
      chunks: [],
      progress: null,
      timeoutMs: opts.timeoutMs ?? EXTRACTION_DEFAULTS.timeoutMs,
      resolve,
    });
  });
}

/** Stops every extractor process (graceful shutdown, end of a test file). */
export function closeExtractors(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  for (const p of all) p.close();
  return Promise.resolve();
}
