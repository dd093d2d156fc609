import { startTestApp, type TestApp } from '../../support/app.js';
import {
  addMember,
  createAccessToken,
  createProject,
  createTeam,
  createUser,
} from '../../support/factories.js';
import { connectContractClient, type ContractClient } from '../../support/mcp-contract.js';
import { makePdf, UPLOAD } from '../../support/pdf.js';

let t: TestApp;
const tokens: Record<string, string> = {};
let projectId: number;

function connect(token: string): Promise<ContractClient> {
  return connectContractClient(t.url, token, 'pds-test');
}

beforeAll(async () => {
  t = await startTestApp();
  for (const plan of ['essential', 'pro', 'elite']) {
    const team = await createTeam(t, { plan });
    const user = await createUser(t);
    await addMember(t, team.id, user.id);
    tokens[plan] = (await createAccessToken(t, team.id, user.id)).secret;
  }
  projectId = (await createProject(t, { name: 'Harbour Lights', city: 'Toronto' })).id;
  await createProject(t, { name: 'Lakeside Towns', city: 'Oakville' });
  const pdf = async (pages: string[]) => (await makePdf(pages)).toString('base64');
  const v1 = await t.gql(
    UPLOAD,
    {
      input: {
        projectId,
        category: 'price-list',
        name: 'prices-v1.pdf',
        contentBase64: await pdf(['Assignment fee: $5,000 (old terms)']),
      },
    },
    t.operator,
  );
  await t.gql(
    UPLOAD,
    {
      input: {
        projectId,
        category: 'price-list',
        name: 'prices-v2.pdf',
        supersedesDocumentId: v1.data.uploadDocument.document.id,
        contentBase64: await pdf(['Free assignment.']),
      },
    },
    t.operator,
  );
  await t.gql(
    UPLOAD,
    {
      input: {
        projectId,
        category: 'features-finishes',
        name: 'features.pdf',
        contentBase64: await pdf([
          'Kitchen: 30" gas range, quartz counter-tops.\nBath: frameless glass shower.',
          "Second page: 9' ceilings.",
        ]),
      },
    },
    t.operator,
  );
  await t.app.deps.ingestion.queue.idle();
});
afterAll(async () => {
  await t.close();
});

describe('MCP tool server with the official SDK client', () => {
  it('connects, lists the tools with schemas, and runs the typical sequence', async () => {
    const client = await connect(tokens.pro);
    expect(client.getServerVersion()?.name).toBe('property-data-service');
    expect(client.getInstructions()).toMatch(/find-projects-mentioning/);
    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name).sort()).toEqual([
      'compare-document-revisions',
      'fetch',
      'fetch-document-context',
      'find-projects-mentioning',
      'list-project-documents',
      'list-projects',
      'search',
      'search-document-text',
    ]);
    for (const tool of tools) {
      expect(tool.annotations?.readOnlyHint).toBe(true);
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.title).toBeTruthy();
    }
    // Each result is checked by the SDK against the advertised outputSchema and by ContractClient
    // against the committed one; every id a tool returns is fed, as returned, to the next tool.
    const projects = await client.callTool({ name: 'list-projects', arguments: { city: 'Toronto' } });
    expect(projects.isError).toBeFalsy();
    const listedProject = (projects.structuredContent as any).data[0];
    expect(projects.structuredContent).toMatchObject({
      data: [{ name: 'Harbour Lights', project_id: projectId }],
      meta: { page: 1, per_page: 20, total: 1 },
    });

    const inventory = await client.callTool({
      name: 'list-project-documents',
      arguments: { project_id: listedProject.project_id },
    });
    expect(inventory.isError).toBeFalsy();
    expect((inventory.structuredContent as any).meta).toEqual({
      project_id: projectId,
      total_documents: 2,
      include_historical: false,
      next_cursor: null,
    });

    const found = await client.callTool({
      name: 'find-projects-mentioning',
      arguments: { query: '30 inch gas range' },
    });
    const match = (found.structuredContent as any).data[0];
    expect(match).toMatchObject({
      project_id: projectId,
      project_name: 'Harbour Lights',
      match_count: 1,
      categories_matched: ['features-finishes'],
    });

    const hits = await client.callTool({
      name: 'search-document-text',
      arguments: { query: 'quartz countertops', project_id: match.project_id },
    });
    expect(hits.isError).toBeFalsy();
    const hit = (hits.structuredContent as any).data[0];
    expect(hit).toMatchObject({
      project_id: projectId,
      document_name: 'features.pdf',
      page_number: 1,
      matched_term: expect.any(String),
    });
    expect((inventory.structuredContent as any).data.map((d: any) => d.document_id)).toContain(
      hit.document_id,
    );
    expect((hits.structuredContent as any).meta.coverage).toMatchObject({
      total_active_documents: 2,
      documents_with_text: 2,
    });

    const around = await client.callTool({
      name: 'fetch-document-context',
      arguments: { chunk_id: hit.chunk_id, after: 1 },
    });
    expect(around.isError).toBeFalsy();
    expect((around.structuredContent as any).data.map((c: any) => c.is_center)).toEqual([true, false]);
    expect((around.structuredContent as any).meta).toMatchObject({
      chunk_id: hit.chunk_id,
      document_id: hit.document_id,
      project_id: hit.project_id,
      extraction_id: hit.extraction_id,
    });

    const byHitProject = await client.callTool({
      name: 'list-project-documents',
      arguments: { project_id: (around.structuredContent as any).meta.project_id },
    });
    expect(byHitProject.isError).toBeFalsy();
    await client.close();
  });

  it('on 2025-11-25: pages the documents as resources, reads one by page, and gets the prompts', async () => {
    const client = await connect(tokens.pro);
    expect((client.transport as { protocolVersion?: string }).protocolVersion).toBe('2025-11-25');
    expect(client.getServerCapabilities()).toMatchObject({ resources: {}, prompts: {}, tools: {} });
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.name).sort()).toEqual(['features.pdf', 'prices-v2.pdf']);
    const features = resources.find((r) => r.name === 'features.pdf')!;
    expect(features).toMatchObject({
      uri: expect.stringMatching(/^pds:\/\/documents\/\d+$/),
      title: 'features.pdf (Harbour Lights)',
      mimeType: 'text/plain',
    });
    const read = await client.readResource({ uri: features.uri });
    expect(read.contents.map((c) => [c.uri, c.mimeType])).toEqual([
      [`${features.uri}/pages/1`, 'text/plain'],
      [`${features.uri}/pages/2`, 'text/plain'],
    ]);
    expect((read.contents[0] as { text: string }).text).toBe(
      'Kitchen: 30" gas range, quartz counter-tops.\nBath: frameless glass shower.',
    );
    expect(read._meta).toMatchObject({
      next_page: null,
      pages: [{ page_number: 1, url: expect.stringMatching(/\/pdf\?team=\d+#page=1$/) }, { page_number: 2 }],
    });
    const page = await client.readResource({ uri: `${features.uri}/pages/2` });
    expect(page.contents).toEqual([
      { uri: `${features.uri}/pages/2`, mimeType: 'text/plain', text: "Second page: 9' ceilings." },
    ]);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.name)).toEqual(['document', 'document-page', 'project-documents']);
    const inventory = await client.readResource({ uri: `pds://projects/${projectId}/documents` });
    expect(JSON.parse((inventory.contents[0] as { text: string }).text).meta.total_documents).toBe(2);
    await expect(client.readResource({ uri: 'pds://documents/999999' })).rejects.toThrow(
      /document 999999 not found/,
    );
    await expect(client.readResource({ uri: 'file:///etc/passwd' })).rejects.toThrow(/Resource not found/);

    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual([
      'compare-incentives-in-city',
      'summarize-deposit-structure',
      'find-feature-across-projects',
    ]);
    const compare = await client.getPrompt({
      name: 'compare-incentives-in-city',
      arguments: { city: 'Toronto' },
    });
    expect((compare.messages[0].content as { text: string }).text).toMatch(
      /list-projects with city "Toronto"/,
    );
    const deposits = await client.getPrompt({
      name: 'summarize-deposit-structure',
      arguments: { project_id: String(projectId) },
    });
    expect((deposits.messages.at(-1)!.content as { text: string }).text).toMatch(
      /no indexed deposit-structure document/,
    );
    await expect(client.getPrompt({ name: 'compare-incentives-in-city', arguments: {} })).rejects.toThrow(
      /Missing required argument 'city'/,
    );
    await expect(
      client.getPrompt({ name: 'summarize-deposit-structure', arguments: { project_id: '999999' } }),
    ).rejects.toThrow(/project 999999 not found/);
    await client.close();
  });

  it('resources follow the plan: essential is refused, elite also lists and reads older revisions', async () => {
    const essential = await connect(tokens.essential);
    await expect(essential.listResources()).rejects.toThrow(/requires a Pro plan/);
    await essential.close();
    const elite = await connect(tokens.elite);
    const { resources } = await elite.listResources();
    const old = resources.find((r) => r.name === 'prices-v1.pdf')!;
    expect(old.description).toMatch(/an older revision/);
    const text = await elite.readResource({ uri: old.uri });
    expect((text.contents[0] as { text: string }).text).toBe('Assignment fee: $5,000 (old terms)');
    await elite.close();
    const pro = await connect(tokens.pro);
    await expect(pro.readResource({ uri: old.uri })).rejects.toThrow(/not found/);
    await pro.close();
  });

  it('reports tool failures as isError results a model can act on', async () => {
    const client = await connect(tokens.pro);
    const bad = await client.callTool({
      name: 'search-document-text',
      arguments: { query: 'gas', limit: 99 },
    });
    expect(bad.isError).toBe(true);
    expect((bad.content as any)[0].text).toMatch(/limit must be <= 25/);
    const stale = await client.callTool({ name: 'fetch-document-context', arguments: { chunk_id: 999999 } });
    expect(stale.isError).toBe(true);
    // The domain's words, then the tool server's hint: which tool gives a valid id.
    expect((stale.content as any)[0].text).toBe(
      'chunk 999999 not found: it may belong to an older extraction of a re-indexed document; run search-document-text again for fresh chunk ids',
    );
    const ghost = await client.callTool({
      name: 'list-project-documents',
      arguments: { project_id: 999999 },
    });
    expect((ghost.content as any)[0].text).toBe(
      'project 999999 not found; use list-projects to find project ids',
    );
    await expect(client.callTool({ name: 'no-such-tool', arguments: {} })).rejects.toThrow(/Unknown tool/);
    await client.close();
  });

  it('applies the plan: essential gets the permission error, pro ignores include_historical, elite sees revisions', async () => {
    const essential = await connect(tokens.essential);
    const denied = await essential.callTool({
      name: 'search-document-text',
      arguments: { query: 'assignment' },
    });
    expect(denied.isError).toBe(true);
    expect((denied.content as any)[0].text).toMatch(/requires a Pro plan/);
    await essential.close();
    const pro = await connect(tokens.pro);
    const proHist = await pro.callTool({
      name: 'search-document-text',
      arguments: { query: 'assignment fee', include_historical: true },
    });
    expect((proHist.structuredContent as any).meta.total_chunks_matched).toBe(0);
    await pro.close();
    const elite = await connect(tokens.elite);
    const eliteHist = await elite.callTool({
      name: 'search-document-text',
      arguments: { query: 'assignment fee', include_historical: true },
    });
    expect((eliteHist.structuredContent as any).data.map((h: any) => h.document_name)).toEqual([
      'prices-v1.pdf',
    ]);
    await elite.close();
  });
});

describe('MCP transport rules', () => {
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    t.request('POST', '/mcp', {
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.pro}`, ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('401 with WWW-Authenticate for a missing, bare or bad token', async () => {
    for (const authorization of [undefined, tokens.pro, 'Bearer pds_mcp_nope']) {
      const res = await t.request('POST', '/mcp', {
        headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(
        `Bearer resource_metadata="${t.config.publicBaseUrl}/.well-known/oauth-protected-resource"`,
      );
    }
    const meta = await t.request('GET', '/.well-known/oauth-protected-resource');
    expect(meta.json).toMatchObject({
      resource: `${t.config.publicBaseUrl}/mcp`,
      authorization_servers: [t.config.publicBaseUrl],
    });
  });

  it('Content-Type must be application/json: 415 with a JSON body naming the header', async () => {
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    for (const contentType of ['text/plain', undefined, 'application/x-www-form-urlencoded']) {
      const res = await t.request('POST', '/mcp', {
        headers: {
          authorization: `Bearer ${tokens.pro}`,
          ...(contentType ? { 'content-type': contentType } : {}),
        },
        body: ping,
      });
      expect(res.status).toBe(415);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.json).toEqual({
        message: expect.stringMatching(/^Content-Type must be application\/json/),
        header: 'Content-Type',
      });
    }
    const charset = await post(ping, { 'content-type': 'application/json; charset=utf-8' });
    expect(charset.json).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('Accept: JSON when the client lists it (as MCP clients do), one SSE event for an SSE-only client, 406 otherwise', async () => {
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' });
    for (const accept of [
      'application/json, text/event-stream',
      'application/json',
      '*/*',
      'application/*',
    ]) {
      const res = await post(ping, { accept });
      expect([res.status, res.headers.get('content-type'), res.json]).toEqual([
        200,
        expect.stringMatching(/^application\/json/),
        { jsonrpc: '2.0', id: 9, result: {} },
      ]);
    }
    const sse = await post(ping, { accept: 'text/event-stream' });
    expect([sse.status, sse.headers.get('content-type')]).toEqual([
      200,
      expect.stringMatching(/^text\/event-stream/),
    ]);
    expect(sse.text).toBe(
      `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 9, result: {} })}\n\n`,
    );
    for (const accept of ['text/html', 'application/json;q=0, text/plain']) {
      const refused = await post(ping, { accept });
      expect(refused.status).toBe(406);
      expect(refused.json).toEqual({
        message: expect.stringMatching(/^Accept must include application\/json/),
        header: 'Accept',
      });
    }
  });

  it('protocol errors: parse, batch, unknown method, notifications, methods, versions, origin, size', async () => {
    expect((await post('{"jsonrpc":')).json.error.code).toBe(-32700);
    expect((await post([{ jsonrpc: '2.0', id: 1, method: 'ping' }])).json.error.code).toBe(-32600);
    expect((await post({ jsonrpc: '2.0', id: 2, method: 'completion/complete' })).json.error.code).toBe(
      -32601,
    );
    expect((await post({ jsonrpc: '2.0', id: 3, method: 'ping' })).json).toEqual({
      jsonrpc: '2.0',
      id: 3,
      result: {},
    });
    const note = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect([note.status, note.text]).toEqual([202, '']);
    const init = await post({
      jsonrpc: '2.0',
      id: 4,
      method: 'initialize',
      params: { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    });
    expect(init.json.result.protocolVersion).toBe('2025-11-25');
    const init2 = await post({
      jsonrpc: '2.0',
      id: 5,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    });
    expect(init2.json.result.protocolVersion).toBe('2025-06-18');
    // 2026-07-28 has no handshake: an initialize asking for it is answered with the newest that has one.
    const init3 = await post({
      jsonrpc: '2.0',
      id: 5,
      method: 'initialize',
      params: { protocolVersion: '2026-07-28', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    });
    expect(init3.json.result.protocolVersion).toBe('2025-11-25');
    const badVersion = await post(
      { jsonrpc: '2.0', id: 6, method: 'ping' },
      { 'mcp-protocol-version': '2020-01-01' },
    );
    expect([badVersion.status, badVersion.json.error.code, badVersion.json.error.data]).toEqual([
      400,
      -32022,
      {
        supported: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
        requested: '2020-01-01',
      },
    ]);
    expect(
      (await post({ jsonrpc: '2.0', id: 7, method: 'ping' }, { origin: 'https://evil.example' })).status,
    ).toBe(403);
    const get = await t.request('GET', '/mcp');
    expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST']);
    expect((await t.request('DELETE', '/mcp')).status).toBe(405);
    const huge = await post({
      jsonrpc: '2.0',
      id: 8,
      method: 'tools/call',
      params: { name: 'list-projects', arguments: { q: 'x'.repeat(1_100_000) } },
    });
    expect(huge.status).toBe(413);
    expect(huge.json.error.code).toBe(-32600);
    expect((await t.request('GET', '/healthz')).status).toBe(200);
  });
});
