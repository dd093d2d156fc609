import { startTestApp, type TestApp } from '../../support/app.js';
import {
  addMember,
  createAccessToken,
  createProject,
  createTeam,
  createUser,
} from '../../support/factories.js';
import { makePdf, UPLOAD } from '../../support/pdf.js';
import { scannedPdf } from '../../support/scan.js';
import { EXTRACTION_METHOD } from '../../../src/ingestion/pdf-text.js';

/** A scanned document through upload, the queue, the extractor's OCR and the search. */
let t: TestApp;
let token: string;
let harbour: number;
let lakeside: number;
const docs: Record<string, number> = {};

async function upload(projectId: number, name: string, pdf: Buffer): Promise<number> {
  const res = await t.gql(
    UPLOAD,
    { input: { projectId, name, category: 'incentives', contentBase64: pdf.toString('base64') } },
    t.operator,
  );
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  docs[name] = res.data.uploadDocument.document.id;
  return docs[name];
}

beforeAll(async () => {
  // Scans are 200 dpi images: read at 200 dpi here, to spare the CI runner's two cores.
  t = await startTestApp({ OCR_DPI: '200' });
  const team = await createTeam(t, { plan: 'pro' });
  const user = await createUser(t);
  await addMember(t, team.id, user.id);
  token = (await createAccessToken(t, team.id, user.id)).secret;
  harbour = (await createProject(t, { name: 'Harbour Lights' })).id;
  lakeside = (await createProject(t, { name: 'Lakeside Towns' })).id;
  await upload(
    harbour,
    'harbour-incentives.pdf',
    await makePdf(['Incentives: free assignment and a locker.']),
  );
  await upload(
    lakeside,
    'lakeside-incentives-scan.pdf',
    await scannedPdf([
      'Lakeside Towns incentives',
      'Cash back of $10,000 on closing for the first 20 buyers.',
    ]),
  );
  await t.app.deps.ingestion.queue.idle();
}, 180_000);

afterAll(async () => {
  await t.close();
});

const FIND = `query($q: String!) { findProjectsMentioning(query: $q) {
  data { projectName matchCount categoriesMatched bestExcerpt }
  meta { coverage { totalActiveDocuments documentsWithText documentsWithNoText } } } }`;
const SEARCH = `query($q: String!) { searchDocumentText(query: $q) {
  data { chunkId documentName pageNumber excerpt ocrConfidence } } }`;
const CONTEXT = `query($id: Int!) { documentContext(chunkId: $id, before: 1) {
  data { chunkId pageNumber text ocrConfidence } } }`;
const DOCS = `query($p: Int!) { projectDocuments(projectId: $p) {
  data { name indexed extractionStatus extractionMethod pageCount } } }`;

describe('scanned documents in search', () => {
  it('finds the project whose only mention is in a scan, and counts the scan as indexed', async () => {
    const res = await t.gql(FIND, { q: 'cash back' }, token);
    expect(res.errors).toBeUndefined();
    expect(res.data.findProjectsMentioning.data).toMatchObject([
      { projectName: 'Lakeside Towns', matchCount: 1, categoriesMatched: ['incentives'] },
    ]);
    expect(res.data.findProjectsMentioning.meta.coverage).toEqual({
      totalActiveDocuments: 2,
      documentsWithText: 2,
      documentsWithNoText: 0,
    });
  });

  it('shows OCR chunks with their page and confidence, and text-layer chunks with none', async () => {
    const scan = (await t.gql(SEARCH, { q: 'cash back' }, token)).data.searchDocumentText.data;
    expect(scan).toHaveLength(1);
    expect(scan[0]).toMatchObject({ documentName: 'lakeside-incentives-scan.pdf', pageNumber: 2 });
    expect(scan[0].ocrConfidence).toBeGreaterThan(50);
    expect(scan[0].ocrConfidence).toBeLessThanOrEqual(100);
    const context = (await t.gql(CONTEXT, { id: scan[0].chunkId }, token)).data.documentContext.data;
    expect(context.map((c: { pageNumber: number }) => c.pageNumber)).toEqual([1, 2]);
    for (const c of context) expect(c.ocrConfidence).toBeGreaterThan(0);
    const text = (await t.gql(SEARCH, { q: 'free assignment' }, token)).data.searchDocumentText.data;
    expect(text).toMatchObject([{ documentName: 'harbour-incentives.pdf', ocrConfidence: null }]);
  });

  it('says how each document was read', async () => {
    const lakesideDocs = (await t.gql(DOCS, { p: lakeside }, token)).data.projectDocuments.data;
    expect(lakesideDocs).toEqual([
      {
        name: 'lakeside-incentives-scan.pdf',
        indexed: true,
        extractionStatus: 'completed',
        extractionMethod: 'ocr',
        pageCount: 2,
      },
    ]);
    const harbourDocs = (await t.gql(DOCS, { p: harbour }, token)).data.projectDocuments.data;
    expect(harbourDocs[0]).toMatchObject({ extractionMethod: EXTRACTION_METHOD });
  });

  it('reads a scan left as no_text by an earlier version when the document is re-indexed', async () => {
    const id = docs['lakeside-incentives-scan.pdf'];
    // The state a version without OCR left: the current extraction found no text, and no chunks.
    const connection = t.app.deps.em.fork().getConnection();
    await connection.execute(
      `update extraction set status = 'no_text', method = ?, indexed_at = null
        where id = (select current_extraction_id from document where id = ?)`,
      [EXTRACTION_METHOD, id],
    );
    await connection.execute(
      'delete from chunk where extraction_id = (select current_extraction_id from document where id = ?)',
      [id],
    );
    const before = await t.gql(FIND, { q: 'cash back' }, token);
    expect(before.data.findProjectsMentioning.data).toEqual([]);
    expect(before.data.findProjectsMentioning.meta.coverage.documentsWithNoText).toBe(1);

    const res = await t.gql(
      'mutation($id: Int!) { reindexDocument(documentId: $id) { id status } }',
      { id },
      t.operator,
    );
    expect(res.errors).toBeUndefined();
    await t.app.deps.ingestion.queue.idle();
    const after = await t.gql(FIND, { q: 'cash back' }, token);
    expect(after.data.findProjectsMentioning.data).toMatchObject([{ projectName: 'Lakeside Towns' }]);
    expect(after.data.findProjectsMentioning.meta.coverage.documentsWithNoText).toBe(0);
  }, 120_000);
});
