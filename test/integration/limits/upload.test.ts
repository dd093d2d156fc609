import { request as httpRequest } from 'node:http';
import { ExtractionSchema } from '../../../src/documents/document.entity.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { createApiKey, createProject, createTeam } from '../../support/factories.js';
import { paddedPdf } from '../../support/hostile-pdf.js';
import { UPLOAD } from '../../support/pdf.js';

/**
 * PDFs up to MAX_UPLOAD_BYTES through PUT /admin/projects/{id}/documents (raw
 * body, no base64 in JSON); the GraphQL mutation stays for small files with a clear error past
 * its real limit. MAX_UPLOAD_BYTES is 6 MB here so a near-limit file stays quick to store.
 */
const LIMIT = 6 * 1024 * 1024;
let t: TestApp;
let projectId: number;

beforeAll(async () => {
  t = await startTestApp({ MAX_UPLOAD_BYTES: String(LIMIT), REQUEST_TIMEOUT_MS: '60000' });
  projectId = (await createProject(t)).id;
});
afterAll(async () => {
  await t.close();
});

const idle = () => t.app.deps.ingestion.queue.idle();

function put(
  body: Uint8Array,
  opts: { query?: string; contentType?: string | null; auth?: string | null; project?: number } = {},
) {
  const headers: Record<string, string> = {};
  if (opts.contentType !== null) headers['content-type'] = opts.contentType ?? 'application/pdf';
  const auth = opts.auth === undefined ? `Bearer ${t.operator}` : opts.auth;
  if (auth) headers.authorization = auth;
  return t.request(
    'PUT',
    `/admin/projects/${opts.project ?? projectId}/documents?${opts.query ?? 'category=brochure&name=big.pdf'}`,
    { headers, body },
  );
}

/** A chunked upload (no Content-Length): the limit has to hold while the body streams in. */
function putChunked(total: number): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${t.url}/admin/projects/${projectId}/documents?category=brochure&name=chunked.pdf`,
      {
        method: 'PUT',
        headers: { 'content-type': 'application/pdf', authorization: `Bearer ${t.operator}` },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    const piece = Buffer.alloc(256 * 1024, 0x25);
    let sent = 0;
    const write = () => {
      while (sent < total) {
        sent += piece.length;
        if (!req.write(piece)) return void req.once('drain', write);
      }
      req.end();
    };
    write();
  });
}

describe('PUT /admin/projects/{id}/documents', () => {
  it('stores a PDF over 1 MB and one just under MAX_UPLOAD_BYTES, and extracts them', async () => {
    for (const [size, name] of [
      [2 * 1024 * 1024, 'two-mb.pdf'],
      [LIMIT - 64, 'near-limit.pdf'],
    ] as const) {
      const pdf = paddedPdf(size, `Document ${name}: quartz counter-tops`);
      expect(pdf.length).toBe(size);
      const res = await put(pdf, { query: `category=brochure&name=${name}&type=sheet` });
      expect(res.status).toBe(201);
      expect(res.json).toMatchObject({ duplicate: false, extractionId: expect.any(Number) });
      await idle();
      const extraction = await t.app.deps.em
        .fork()
        .findOneOrFail(ExtractionSchema, { id: res.json.extractionId });
      expect(extraction).toMatchObject({ status: 'completed', pageCount: 1 });
    }
  });

  it('shares store-and-queue with the mutation: the same bytes are one document either way', async () => {
    const pdf = paddedPdf(200_000, 'Shared path: same bytes through both doors');
    const first = await put(pdf, { query: 'category=price-list&name=prices.pdf' });
    expect(first.status).toBe(201);
    // Extracted first: a repeat of a document still pending would queue its extraction again.
    await idle();
    const again = await t.gql(
      UPLOAD,
      {
        input: {
          projectId,
          category: 'price-list',
          name: 'prices.pdf',
          contentBase64: Buffer.from(pdf).toString('base64'),
        },
      },
      t.operator,
    );
    expect(again.data.uploadDocument).toMatchObject({
      duplicate: true,
      extractionId: null,
      document: { id: first.json.documentId },
    });
    const twice = await put(pdf, { query: 'category=price-list&name=prices.pdf' });
    expect(twice.status).toBe(200);
    expect(twice.json).toEqual({ documentId: first.json.documentId, extractionId: null, duplicate: true });
  });

  it('refuses an upload over the limit with 413 and a body that says so, declared or streamed', async () => {
    const over = await put(new Uint8Array(LIMIT + 1));
    expect(over.status).toBe(413);
    expect(over.json).toEqual({
      message: `The PDF is larger than the ${LIMIT}-byte upload limit (MAX_UPLOAD_BYTES)`,
      limit: LIMIT,
    });
    const streamed = await putChunked(LIMIT + 512 * 1024);
    expect(streamed.status).toBe(413);
    expect(streamed.body.limit).toBe(LIMIT);
  });

  it('answers 415 for another content type, 401 without a credential, 403 for a non-operator', async () => {
    const pdf = paddedPdf(10_000, 'auth checks');
    const json = await put(pdf, { contentType: 'application/json' });
    expect(json.status).toBe(415);
    expect(json.json.message).toMatch(/Content-Type: application\/pdf/);
    expect((await put(pdf, { contentType: null })).status).toBe(415);
    const anonymous = await put(pdf, { auth: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.json.message).toMatch(/No API key supplied/);
    expect((await put(pdf, { auth: 'Bearer pds_live_notarealkey' })).status).toBe(401);
    const team = await createTeam(t, { plan: 'elite' });
    const key = (await createApiKey(t, team.id, ['building-links'])).secret;
    const customer = await put(pdf, { auth: `Bearer ${key}` });
    expect(customer.status).toBe(403);
    expect(customer.json.message).toBe('Only the operator may do this');
  });

  it('answers 422 naming the field for bad metadata or a body that is not a PDF', async () => {
    const pdf = paddedPdf(10_000, 'validation');
    const bad = await put(pdf, { query: 'category=nonsense&name=x.pdf' });
    expect(bad.status).toBe(422);
    expect(bad.json.message).toMatch(/category/);
    const notPdf = await put(Buffer.from('hello, not a pdf'));
    expect(notPdf.status).toBe(422);
    expect(notPdf.json.message).toMatch(/body: is not a PDF/);
    const noProject = await put(pdf, { project: 999_999 });
    expect(noProject.status).toBe(422);
    expect(noProject.json.message).toMatch(/no project with id 999999/);
  });
});

describe('the GraphQL mutation past its real limit', () => {
  it('gets 413 with a GraphQL error naming the limit and the streaming path, not a bare 413', async () => {
    const big = Buffer.alloc(900 * 1024, 0x41).toString('base64');
    const res = await t.request('POST', '/graphql', {
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t.operator}` },
      body: JSON.stringify({
        query: UPLOAD,
        variables: { input: { projectId, category: 'brochure', name: 'x.pdf', contentBase64: big } },
      }),
    });
    expect(res.status).toBe(413);
    expect(res.json.errors[0]).toMatchObject({
      message: expect.stringContaining('PUT /admin/projects/{projectId}/documents'),
      extensions: { code: 'PAYLOAD_TOO_LARGE', maxBodyBytes: 1024 * 1024 },
    });
  });
});
