import { ExtractionSchema } from '../../../src/documents/document.entity.js';
import { uploadDocument } from '../../../src/ingestion/ingest.service.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { stallMonitor } from '../../support/event-loop.js';
import { createProject } from '../../support/factories.js';
import { flateBombPdf, textHeavyPdf } from '../../support/hostile-pdf.js';
import { makePdf } from '../../support/pdf.js';

/**
 * Extraction memory is bounded by the operating system. The hostile PDFs are
 * made here: a Flate stream of ~4 MB that inflates to 4 GiB, and a document with 5 MB of text.
 */
let t: TestApp;
let projectId: number;
let uploads = 0;

beforeAll(async () => {
  t = await startTestApp({ EXTRACT_MEMORY_MB: '512', EXTRACT_TIMEOUT_MS: '300000' });
  projectId = (await createProject(t)).id;
  // Warm up: the extractor processes exist and the ORM's metadata is loaded before any baseline.
  await ingest(await makePdf(['Warm-up page with enough words to chunk']));
  await idle();
});
afterAll(async () => {
  await t.close();
});

const idle = () => t.app.deps.ingestion.queue.idle();

async function ingest(pdf: Buffer): Promise<number> {
  const outcome = await uploadDocument(
    t.app.deps.em.fork(),
    { projectId, category: 'brochure', name: `upload-${++uploads}.pdf`, content: pdf },
    t.config.maxUploadBytes,
  );
  await t.app.deps.ingestion.queue.enqueue(outcome.extractionId!);
  return outcome.extractionId!;
}

async function extraction(id: number) {
  return t.app.deps.em.fork().findOneOrFail(ExtractionSchema, { id });
}

/** Samples this process's RSS every 20 ms while `work` runs; returns the peak. */
async function peakRss(work: () => Promise<void>): Promise<number> {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, process.memoryUsage.rss());
}

const MB = 1024 * 1024;

describe('extraction bounded by the operating system', () => {
  it('a decompression bomb kills its own extractor, fails its job with "exceeded memory", and this process stays flat', async () => {
    const baseline = process.memoryUsage.rss();
    let id = 0;
    const peak = await peakRss(async () => {
      id = await ingest(flateBombPdf(4 * 1024 ** 3));
      await idle();
    });
    expect(await extraction(id)).toMatchObject({
      status: 'failed',
      error: "exceeded memory: the extractor's 512 MB limit",
    });
    expect((peak - baseline) / MB).toBeLessThan(300);
  });

  it('two bombs at once fail both jobs, and the next document is extracted', async () => {
    const baseline = process.memoryUsage.rss();
    let ids: number[] = [];
    const peak = await peakRss(async () => {
      ids = [await ingest(flateBombPdf(5 * 1024 ** 3)), await ingest(flateBombPdf(6 * 1024 ** 3))];
      await idle();
    });
    for (const id of ids) {
      expect(await extraction(id)).toMatchObject({
        status: 'failed',
        error: expect.stringContaining('exceeded memory'),
      });
    }
    expect((peak - baseline) / MB).toBeLessThan(300);
    const next = await ingest(await makePdf(['After the bombs: quartz counter-tops and a gas range']));
    await idle();
    expect(await extraction(next)).toMatchObject({ status: 'completed', error: null });
  });

  it('a document with 5 MB of text stalls the event loop for less than 200 ms', async () => {
    const pdf = textHeavyPdf(5_000_000);
    const monitor = stallMonitor();
    const id = await ingest(pdf);
    await idle();
    const stalled = monitor.stop();
    const row = await extraction(id);
    expect(row).toMatchObject({ status: 'completed', error: null });
    expect(row.rawTextLength).toBeGreaterThan(4_900_000);
    const [{ n }] = await t.app.deps.em
      .fork()
      .getConnection()
      .execute<{ n: number }[]>('select count(*)::int as n from chunk where extraction_id = ?', [id]);
    expect(n).toBeGreaterThan(5000);
    // The goal is on this process's own blocking; the wall-clock figure also holds what the other
    // suites and the extractor took from a shared 2-core machine, so it only gets a sanity bound.
    // On the embedded PGlite (no DATABASE_URL) the database itself runs on this thread, so writing
    // the document's ~15 MB of chunks and index entries is this process's own work by design: the
    // 200 ms goal is for an API node with PostgreSQL (CI runs it so); PGlite gets the sanity bound.
    if (process.env.DATABASE_URL) expect(stalled.ownMs).toBeLessThan(200);
    expect(stalled.wallMs).toBeLessThan(2000);
  });
});
