import { vocabularyOf } from '../../../src/search/text/compounds.js';
import { NORMALIZER_VERSION } from '../../../src/search/text/normalize.js';
import { ChunkSchema, DocumentSchema, ExtractionSchema } from '../../../src/documents/document.entity.js';
import { processExtraction, uploadDocument } from '../../../src/ingestion/ingest.service.js';
import { defaultExtractor } from '../../../src/ingestion/ingestion.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { createProject } from '../../support/factories.js';
import { makePdf, UPLOAD } from '../../support/pdf.js';

let t: TestApp;
let projectId: number;

beforeAll(async () => {
  t = await startTestApp({ MAX_UPLOAD_BYTES: '200000' });
  projectId = (await createProject(t)).id;
});
afterAll(async () => {
  await t.close();
});

const b64 = (b: Buffer) => b.toString('base64');
const idle = () => t.app.deps.ingestion.queue.idle();

async function upload(pdf: Buffer, extra: Record<string, unknown> = {}) {
  return t.gql(
    UPLOAD,
    {
      input: {
        projectId,
        category: 'features-finishes',
        name: 'features.pdf',
        contentBase64: b64(pdf),
        ...extra,
      },
    },
    t.operator,
  );
}

async function state(documentId: string) {
  const em = t.app.deps.em.fork();
  const doc = await em.findOneOrFail(
    DocumentSchema,
    { id: Number(documentId) },
    { populate: ['currentExtraction'] },
  );
  const chunks = await em.find(ChunkSchema, { document: doc.id }, { orderBy: { chunkIndex: 'asc' } });
  return { doc, extraction: doc.currentExtraction, chunks };
}

const count = async (table: string) =>
  Number(
    (await t.app.deps.em.fork().getConnection().execute(`select count(*)::int as n from ${table}`))[0].n,
  );

describe('document ingestion', () => {
  it('stores a PDF, extracts it in a job and commits searchable chunks', async () => {
    const pdf = await makePdf([
      'Kitchen: 30" gas range and quartz counter-tops.\nSecond line of page one.',
      "Page two: 9' ceilings throughout.",
    ]);
    const res = await upload(pdf, { name: 'harbour-features.pdf', type: 'features sheet' });
    expect(res.errors).toBeUndefined();
    expect(res.data.uploadDocument).toMatchObject({
      duplicate: false,
      document: { name: 'harbour-features.pdf', category: 'features-finishes', isLatest: true },
    });
    await idle();
    const { extraction, chunks } = await state(res.data.uploadDocument.document.id);
    expect(extraction).toMatchObject({
      status: 'completed',
      pageCount: 2,
      method: expect.stringMatching(/^unpdf-/),
      normalizerVersion: NORMALIZER_VERSION,
    });
    expect(extraction!.indexedAt).toBeInstanceOf(Date);
    expect(chunks.map((c) => c.pageNumber)).toEqual([1, 2]);
    expect(chunks[0].searchText).toContain('30 inch gas range');
    expect(chunks[0].textHash).toMatch(/^[0-9a-f]{64}$/);
    const doc = await t.gql(
      `query($id: Int!) { document(id: $id) { extraction { status pageCount rawTextLength } } }`,
      { id: res.data.uploadDocument.document.id },
      t.operator,
    );
    expect(doc.data.document.extraction).toMatchObject({ status: 'completed', pageCount: 2 });
    // The index's vocabulary holds every word of the chunks' search text (the extractor lists them).
    const words = vocabularyOf(chunks.map((c) => c.searchText));
    expect(words).toEqual(expect.arrayContaining(['kitchen', 'quartz', 'ceilings']));
    const recorded = await t.app.deps.em
      .fork()
      .getConnection()
      .execute<{ word: string }[]>('select word from search_vocabulary where word in (?)', [words]);
    expect(recorded.map((r) => r.word).sort()).toEqual([...words].sort());
  });

  it('does not store the same bytes twice for a project', async () => {
    const pdf = await makePdf(['Duplicate detection page.']);
    const first = await upload(pdf);
    await idle();
    const before = await count('document');
    const again = await upload(pdf, { name: 'other-name.pdf' });
    expect(again.data.uploadDocument).toMatchObject({
      duplicate: true,
      extractionId: null,
      document: { id: first.data.uploadDocument.document.id },
    });
    expect(await count('document')).toBe(before);
  });

  it('a repeated upload of a document left pending (its queueing failed) queues its extraction again', async () => {
    const pdf = await makePdf(['Stored, but never queued: the queue failed after the row was saved.']);
    // The service stores the row; the enqueue that would follow is what failed.
    const stored = await uploadDocument(
      t.app.deps.em.fork(),
      { projectId, category: 'features-finishes', name: 'lost.pdf', content: pdf },
      200_000,
    );
    expect(await t.app.deps.ingestion.queue.withoutLiveJob([stored.extractionId!])).toEqual([
      stored.extractionId,
    ]);
    const again = await upload(pdf, { name: 'lost.pdf' });
    expect(again.data.uploadDocument).toMatchObject({ duplicate: true, extractionId: stored.extractionId });
    await idle();
    const { extraction } = await state(String(stored.document.id));
    expect(extraction).toMatchObject({ id: stored.extractionId, status: 'completed' });
  });

  it('the reconciler queues an extraction that has no live job', async () => {
    const pdf = await makePdf(['Nobody queued me; the reconciler does.']);
    const stored = await uploadDocument(
      t.app.deps.em.fork(),
      { projectId, category: 'features-finishes', name: 'orphan.pdf', content: pdf },
      200_000,
    );
    expect(await t.app.deps.ingestion.reconcile()).toBeGreaterThanOrEqual(1);
    await idle();
    const { extraction } = await state(String(stored.document.id));
    expect(extraction).toMatchObject({ id: stored.extractionId, status: 'completed' });
    // Nothing left without a live job: a second pass queues nothing.
    expect(await t.app.deps.ingestion.reconcile()).toBe(0);
  });

  it('reaches no_text for a scanned (image-only) PDF and failed for corrupt and encrypted ones, and keeps serving', async () => {
    const scanned = await upload(await makePdf(['', '']), { name: 'scan.pdf' });
    const corruptBytes = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2000, 0x41)]);
    const corrupt = await upload(corruptBytes, { name: 'corrupt.pdf' });
    const encrypted = await upload(await makePdf(['Secret price list'], { userPassword: 'hunter2' }), {
      name: 'locked.pdf',
    });
    await idle();
    expect((await state(scanned.data.uploadDocument.document.id)).extraction).toMatchObject({
      status: 'no_text',
      error: null,
    });
    const c = (await state(corrupt.data.uploadDocument.document.id)).extraction!;
    expect(c.status).toBe('failed');
    expect(c.error).toMatch(/corrupt PDF/);
    const e = (await state(encrypted.data.uploadDocument.document.id)).extraction!;
    expect(e.status).toBe('failed');
    expect(e.error).toMatch(/encrypted/);
    expect((await t.request('GET', '/readyz')).status).toBe(200);
  });

  it.each([
    [
      'not a PDF',
      { contentBase64: Buffer.from('hello world, not a pdf').toString('base64') },
      /^contentBase64: is not a PDF/,
    ],
    ['empty file', { contentBase64: '' }, /^contentBase64: is empty/],
    ['not base64', { contentBase64: '***' }, /^contentBase64: must be base64/],
    [
      'over the size limit',
      {
        contentBase64: Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(300_000, 32)]).toString(
          'base64',
        ),
      },
      /^contentBase64: is larger than/,
    ],
    ['unknown project', { projectId: 999999 }, /^projectId: no project/],
    ['unknown category', { category: 'floor-plans' }, /^category: must be one of/],
    ['empty name', { name: ' ' }, /^name: must not be empty/],
  ])('%s → BAD_USER_INPUT naming the field, nothing stored', async (_n, override, message) => {
    const before = await Promise.all(['document', 'extraction'].map(count));
    const res = await upload(await makePdf([`valid ${Math.random()}`]), override);
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors?.[0]?.message).toMatch(message);
    expect(await Promise.all(['document', 'extraction'].map(count))).toEqual(before);
  });

  it('refuses to supersede a document of another project', async () => {
    const other = await createProject(t);
    const foreign = await t.gql(
      UPLOAD,
      {
        input: {
          projectId: other.id,
          category: 'price-list',
          name: 'p.pdf',
          contentBase64: b64(await makePdf(['Other project price list'])),
        },
      },
      t.operator,
    );
    const res = await upload(await makePdf(['New price list']), {
      supersedesDocumentId: foreign.data.uploadDocument.document.id,
    });
    expect(res.errors?.[0]?.message).toMatch(
      /^supersedesDocumentId: document \d+ belongs to another project/,
    );
  });

  it('a superseding upload makes the old revision historical and keeps it', async () => {
    const v1 = await upload(await makePdf(['Price list v1: one bedroom from $599,900']), {
      category: 'price-list',
      name: 'prices-v1.pdf',
    });
    const v2 = await upload(await makePdf(['Price list v2: one bedroom from $629,900']), {
      category: 'price-list',
      name: 'prices-v2.pdf',
      supersedesDocumentId: v1.data.uploadDocument.document.id,
    });
    expect(v2.data.uploadDocument.document).toMatchObject({
      isLatest: true,
      supersedesId: v1.data.uploadDocument.document.id,
    });
    await idle();
    const old = await state(v1.data.uploadDocument.document.id);
    expect(old.doc.isLatest).toBe(false);
    expect(old.extraction?.status).toBe('completed');
    expect(old.chunks.length).toBeGreaterThan(0);
  });

  it('re-index switches atomically to a new extraction and old chunk ids disappear', async () => {
    const res = await upload(await makePdf(['Deposit: $5,000 on signing, 5% in 90 days.']), {
      category: 'deposit-structure',
      name: 'deposit.pdf',
    });
    await idle();
    const before = await state(res.data.uploadDocument.document.id);
    const oldIds = before.chunks.map((c) => c.id);
    const re = await t.gql(
      `mutation($id: Int!) { reindexDocument(documentId: $id) { id status } }`,
      { id: res.data.uploadDocument.document.id },
      t.operator,
    );
    expect(re.data.reindexDocument.status).toBe('pending');
    await idle();
    const after = await state(res.data.uploadDocument.document.id);
    expect(after.extraction!.id).toBe(Number(re.data.reindexDocument.id));
    expect(after.extraction!.status).toBe('completed');
    expect(after.chunks.map((c) => c.id).some((id) => oldIds.includes(id))).toBe(false);
    expect(after.chunks.map((c) => c.rawText)).toEqual(before.chunks.map((c) => c.rawText));
    expect(await t.app.deps.em.fork().count(ChunkSchema, { id: { $in: oldIds } })).toBe(0);
  });

  it('a failed re-index leaves the previous extraction searchable', async () => {
    const res = await upload(await makePdf(['Incentive: free assignment, capped development charges.']), {
      category: 'incentives',
      name: 'incentives.pdf',
    });
    await idle();
    const before = await state(res.data.uploadDocument.document.id);
    const em = t.app.deps.em.fork();
    const reindex = em.create(ExtractionSchema, { document: before.doc.id, status: 'pending' });
    await em.flush();
    const failing = async () => ({
      ...(await defaultExtractor(await makePdf(['x']))),
      status: 'failed' as const,
      pages: [],
      error: 'timed out after 1 ms',
    });
    expect(await processExtraction(t.app.deps.em.fork(), reindex.id, failing)).toBe('failed');
    const after = await state(res.data.uploadDocument.document.id);
    expect(after.extraction!.id).toBe(before.extraction!.id);
    expect(after.chunks.map((c) => c.id)).toEqual(before.chunks.map((c) => c.id));
    expect((await em.fork().findOneOrFail(ExtractionSchema, { id: reindex.id })).error).toBe(
      'timed out after 1 ms',
    );
  });

  it('a worker that dies mid-job leaves no partial or duplicate chunks, and the retry completes', async () => {
    const em = t.app.deps.em.fork();
    const res = await t.gql(
      UPLOAD,
      {
        input: {
          projectId,
          category: 'brochure',
          name: 'brochure.pdf',
          contentBase64: b64(
            await makePdf(['Brochure page one', 'Brochure page two', 'Brochure page three']),
          ),
        },
      },
      t.operator,
    );
    await idle();
    const docId = Number(res.data.uploadDocument.document.id);
    const job = em.create(ExtractionSchema, { document: docId, status: 'pending' });
    await em.flush();
    await expect(
      processExtraction(t.app.deps.em.fork(), job.id, defaultExtractor, {
        beforeCommit: () => Promise.reject(new Error('killed')),
      }),
    ).rejects.toThrow('killed');
    expect(await em.fork().count(ChunkSchema, { extraction: job.id })).toBe(0);
    expect((await em.fork().findOneOrFail(ExtractionSchema, { id: job.id })).status).toBe('processing');
    expect(await processExtraction(t.app.deps.em.fork(), job.id, defaultExtractor)).toBe('completed');
    expect(await processExtraction(t.app.deps.em.fork(), job.id, defaultExtractor)).toBe('completed');
    const chunks = await em.fork().find(ChunkSchema, { document: docId });
    expect(chunks).toHaveLength(3);
    expect(new Set(chunks.map((c) => c.extraction.id))).toEqual(new Set([job.id]));
  });

  /** A stored document with a new pending extraction of it (what the queue would deliver). */
  async function pendingExtraction(pages: string[]) {
    const res = await upload(await makePdf(pages), { category: 'brochure', name: `b-${pages.length}.pdf` });
    await idle();
    const docId = Number(res.data.uploadDocument.document.id);
    const em = t.app.deps.em.fork();
    const job = em.create(ExtractionSchema, { document: docId, status: 'pending' });
    await em.flush();
    return { docId, extractionId: job.id };
  }

  /** The PDF's own extraction, or `pages` in its place, answered once `gate` opens. */
  const extractor =
    (pages?: { pageNumber: number; text: string }[], gate: Promise<void> = Promise.resolve()) =>
    async (bytes: Uint8Array) => {
      const result = await defaultExtractor(bytes);
      await gate;
      return pages ? { ...result, pages, chunks: undefined, pageCount: pages.length } : result;
    };

  /**
   * One delivery of a job claims it and stalls in extraction (a worker thought dead) while a
   * second runs to its end; then the first goes on. Checks that the late one wrote nothing and
   * returns the chunks (id, extraction, index) the first commit left.
   */
  async function deliveredTwice(pdfPages: string[], pages?: { pageNumber: number; text: string }[]) {
    const { docId, extractionId } = await pendingExtraction(pdfPages);
    const chunkRows = async () =>
      (
        await t.app.deps.em.fork().find(ChunkSchema, { document: docId }, { orderBy: { chunkIndex: 'asc' } })
      ).map((c) => [c.id, c.extraction.id, c.chunkIndex]);
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const late = processExtraction(t.app.deps.em.fork(), extractionId, extractor(pages, gate));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await processExtraction(t.app.deps.em.fork(), extractionId, extractor(pages))).toBe('completed');
    const committed = await chunkRows();
    open();
    expect(await late).toBe('completed');
    expect(await chunkRows()).toEqual(committed);
    return { docId, extractionId, committed };
  }

  it('a job delivered twice commits its chunks once: the late delivery writes nothing', async () => {
    const { extractionId, committed } = await deliveredTwice(['Twice delivered: page one', 'page two']);
    expect(committed.map(([, extraction, index]) => [extraction, index])).toEqual([
      [extractionId, 0],
      [extractionId, 1],
    ]);
  });

  it('a document of several insert batches commits every chunk in one transaction, once', async () => {
    // 450 pages of text: three statements of up to 200 chunks, then the commit statement.
    const pages = Array.from({ length: 450 }, (_, i) => ({
      pageNumber: i + 1,
      text: `Page ${i + 1} of the long brochure: quartz countertops, suite ${i}.`,
    }));
    const { docId, extractionId, committed } = await deliveredTwice(['A long brochure'], pages);
    expect(committed.map(([, extraction, index]) => [extraction, index])).toEqual(
      pages.map((_, i) => [extractionId, i]),
    );
    const em = t.app.deps.em.fork();
    const chunks = await em.find(ChunkSchema, { document: docId }, { orderBy: { chunkIndex: 'asc' } });
    expect(chunks.map((c) => c.pageNumber)).toEqual(pages.map((p) => p.pageNumber));
    const doc = await em.findOneOrFail(DocumentSchema, { id: docId });
    expect(doc.currentExtraction!.id).toBe(extractionId);
    const extraction = await em.findOneOrFail(ExtractionSchema, { id: extractionId });
    expect([extraction.status, extraction.pageCount]).toEqual(['completed', 450]);
  });

  it('the same bytes uploaded five times at once store one document; the others are its duplicates', async () => {
    const pdf = await makePdf(['Concurrent duplicate uploads: one stored document, one extraction.']);
    const before = await Promise.all(['document', 'extraction'].map(count));
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, () =>
        uploadDocument(
          t.app.deps.em.fork(),
          { projectId, category: 'brochure', name: 'same.pdf', content: pdf },
          200_000,
        ),
      ),
    );
    expect(outcomes.filter((o) => !o.duplicate)).toHaveLength(1);
    expect(new Set(outcomes.map((o) => o.document.id)).size).toBe(1);
    expect(await Promise.all(['document', 'extraction'].map(count))).toEqual([before[0] + 1, before[1] + 1]);
  });
});
