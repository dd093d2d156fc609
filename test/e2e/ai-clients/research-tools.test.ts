import { createHash } from 'node:crypto';
import { startTestApp, type TestApp } from '../../support/app.js';
import { memberToken, createProject } from '../../support/factories.js';
import { connectContractClient, type ContractClient } from '../../support/mcp-contract.js';
import { makePdf, UPLOAD } from '../../support/pdf.js';

let t: TestApp;
const tokens: Record<string, string> = {};
const teams: Record<string, number> = {};
let projectId: number;
let features: Buffer;
let oldPrices: Buffer;

function connect(token: string): Promise<ContractClient> {
  return connectContractClient(t.url, token, 'research-client');
}

async function upload(name: string, category: string, pdf: Buffer, supersedes?: number): Promise<number> {
  const res = await t.gql(
    UPLOAD,
    {
      input: {
        projectId,
        category,
        name,
        contentBase64: pdf.toString('base64'),
        ...(supersedes ? { supersedesDocumentId: supersedes } : {}),
      },
    },
    t.operator,
  );
  return res.data.uploadDocument.document.id;
}

/** The PDF at a url, as a browser or a script would ask for it. */
function get(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url.replace(t.config.publicBaseUrl, t.url), { headers, redirect: 'manual' });
}

beforeAll(async () => {
  t = await startTestApp();
  for (const plan of ['essential', 'pro', 'elite']) {
    const member = await memberToken(t, plan);
    tokens[plan] = member.secret;
    teams[plan] = member.teamId;
  }
  projectId = (await createProject(t, { name: 'Harbour Lights', city: 'Toronto' })).id;
  oldPrices = await makePdf(['Assignment fee: $5,000 (old terms)']);
  const v1 = await upload('prices-v1.pdf', 'price-list', oldPrices);
  await upload('prices-v2.pdf', 'price-list', await makePdf(['Free assignment.']), v1);
  features = await makePdf([
    'Kitchen: 30" gas range.',
    'Second page: quartz counter-tops and a frameless glass shower.',
  ]);
  await upload('features.pdf', 'features-finishes', features);
  await t.app.deps.ingestion.queue.idle();
});
afterAll(async () => {
  await t.close();
});

describe('search and fetch in the shape research clients require', () => {
  it('search answers results with id, title and url; fetch reads one by its id with the same url', async () => {
    const client = await connect(tokens.pro);
    const { tools } = await client.listTools();
    const search = tools.find((x) => x.name === 'search')!;
    const fetchTool = tools.find((x) => x.name === 'fetch')!;
    expect(search.inputSchema.required).toEqual(['query']);
    expect(Object.keys(search.inputSchema.properties ?? {})).toEqual(['query']);
    expect(Object.keys(fetchTool.inputSchema.properties ?? {})).toEqual(['id']);

    const found = await client.callTool({ name: 'search', arguments: { query: 'quartz countertops' } });
    // One text item holding the JSON of the results, and the same as structured content.
    expect(found.content).toHaveLength(1);
    expect((found.content as any)[0].type).toBe('text');
    const results = JSON.parse((found.content as any)[0].text).results;
    expect(found.structuredContent).toEqual({ results });
    expect(results).toHaveLength(1);
    const [result] = results;
    expect(Object.keys(result).sort()).toEqual(['id', 'title', 'url']);
    expect(result.id).toMatch(/^\d+$/);
    expect(result.title).toBe('features.pdf (Harbour Lights), page 2');
    const documentId = (
      await client.callTool({ name: 'search-document-text', arguments: { query: 'quartz countertops' } })
    ).structuredContent as any;
    expect(documentId.data[0].url).toBe(result.url);
    expect(result.url).toBe(
      `${t.config.publicBaseUrl}/documents/${documentId.data[0].document_id}/pdf?team=${teams.pro}#page=2`,
    );

    const read = await client.callTool({ name: 'fetch', arguments: { id: result.id } });
    expect(read.isError).toBeFalsy();
    const doc = JSON.parse((read.content as any)[0].text);
    expect(read.structuredContent).toEqual(doc);
    expect(doc).toMatchObject({
      id: result.id,
      title: result.title,
      url: result.url,
      metadata: {
        document_name: 'features.pdf',
        project_id: projectId,
        project_name: 'Harbour Lights',
        page_number: 2,
        chunk_id: Number(result.id),
      },
    });
    expect(doc.text).toContain('quartz counter-tops');
    // Its neighbour on page 1 is part of the text, in document order.
    expect(doc.text.indexOf('gas range')).toBeLessThan(doc.text.indexOf('quartz'));

    const missing = await client.callTool({ name: 'fetch', arguments: { id: '999999' } });
    expect(missing.isError).toBe(true);
    const bad = await client.callTool({ name: 'fetch', arguments: { id: 'doc-1' } });
    expect(bad.isError).toBe(true);
    expect((bad.content as any)[0].text).toMatch(/must be an id returned by search/);
    await client.close();
  });

  it('applies the plan: essential refused, pro latest documents only, elite older revisions too', async () => {
    const essential = await connect(tokens.essential);
    const denied = await essential.callTool({ name: 'search', arguments: { query: 'assignment' } });
    expect(denied.isError).toBe(true);
    expect((denied.content as any)[0].text).toMatch(/requires a Pro plan/);
    await essential.close();

    const pro = await connect(tokens.pro);
    const proTitles = (
      (await pro.callTool({ name: 'search', arguments: { query: 'assignment' } })).structuredContent as any
    ).results.map((r: any) => r.title);
    expect(proTitles).toEqual(['prices-v2.pdf (Harbour Lights), page 1']);
    await pro.close();

    const elite = await connect(tokens.elite);
    const eliteResults = (
      (await elite.callTool({ name: 'search', arguments: { query: 'assignment' } })).structuredContent as any
    ).results;
    expect(eliteResults.map((r: any) => r.title).sort()).toEqual([
      'prices-v1.pdf (Harbour Lights), page 1',
      'prices-v2.pdf (Harbour Lights), page 1',
    ]);
    const old = eliteResults.find((r: any) => r.title.startsWith('prices-v1'));
    const read = await elite.callTool({ name: 'fetch', arguments: { id: old.id } });
    expect((read.structuredContent as any).text).toContain('old terms');
    await elite.close();

    // The older revision's PDF: Elite may open it, Pro may not.
    const url = old.url as string;
    expect((await get(url, { authorization: `Bearer ${tokens.elite}` })).status).toBe(200);
    const proUrl = url.replace(`team=${teams.elite}`, `team=${teams.pro}`);
    expect((await get(proUrl, { authorization: `Bearer ${tokens.pro}` })).status).toBe(404);
  });
});

describe('the PDF behind a citation url', () => {
  let url: string;
  beforeAll(async () => {
    const client = await connect(tokens.pro);
    const found = await client.callTool({ name: 'search', arguments: { query: 'gas range' } });
    url = (found.structuredContent as any).results[0].url;
    await client.close();
  });

  it('serves the PDF with its type, disposition, caching headers and ETag', async () => {
    const res = await get(url, { authorization: `Bearer ${tokens.pro}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe('inline; filename=features.pdf');
    expect(res.headers.get('cache-control')).toBe('private, max-age=300');
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const etag = res.headers.get('etag');
    expect(etag).toBe(`"${createHash('sha256').update(features).digest('hex')}"`);
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.equals(features)).toBe(true);
    const again = await get(url, { authorization: `Bearer ${tokens.pro}`, 'if-none-match': etag! });
    expect(again.status).toBe(304);
  });

  it('answers a byte range with 206, an unsatisfiable one with 416, a stale If-Range with the whole PDF', async () => {
    const auth = { authorization: `Bearer ${tokens.pro}` };
    const part = await get(url, { ...auth, range: 'bytes=0-9' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 0-9/${features.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(features.subarray(0, 10))).toBe(true);
    const tail = await get(url, { ...auth, range: 'bytes=-5' });
    expect(Buffer.from(await tail.arrayBuffer()).equals(features.subarray(features.length - 5))).toBe(true);
    const beyond = await get(url, { ...auth, range: `bytes=${features.length + 10}-` });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${features.length}`);
    const stale = await get(url, { ...auth, range: 'bytes=0-9', 'if-range': '"other"' });
    expect(stale.status).toBe(200);
  });

  it('refuses another team, a lower plan and no credential; a browser without a session is sent to sign in', async () => {
    const essential = await get(url, { authorization: `Bearer ${tokens.essential}` });
    expect(essential.status).toBe(403);
    expect(await essential.json()).toMatchObject({ upgrade_required: true });
    expect((await get(url)).status).toBe(401);
    const browser = await get(url, { accept: 'text/html,application/xhtml+xml' });
    expect(browser.status).toBe(303);
    const path = new URL(url).pathname + new URL(url).search;
    expect(browser.headers.get('location')).toBe(`/login?next=${encodeURIComponent(path)}`);
    expect(
      (
        await get(url.replace(/\/documents\/\d+/, '/documents/abc'), {
          authorization: `Bearer ${tokens.pro}`,
        })
      ).status,
    ).toBe(404);
  });
});
