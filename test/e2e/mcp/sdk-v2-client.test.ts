import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startTestApp, type TestApp } from '../../support/app.js';
import { createProject, memberToken } from '../../support/factories.js';
import { assertToolResult } from '../../support/mcp-contract.js';
import { makePdf, UPLOAD } from '../../support/pdf.js';

/**
 * The 2026-07-28 revision with the v2 TypeScript SDK client (@modelcontextprotocol/client), pinned
 * to it: no initialize, `server/discover` at connect, protocol version and capabilities in every
 * request's `_meta`, and the revision's headers. Raw requests check the revision's errors.
 */
let t: TestApp;
let pro: string;
let essential: string;
let projectId: number;

const MODERN = '2026-07-28';

async function connect(
  token: string,
  mode: 'legacy' | 'auto' | { pin: string } = { pin: MODERN },
): Promise<Client> {
  const client = new Client({ name: 'pds-v2-test', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const result = (await client.callTool({ name, arguments: args })) as Record<string, unknown>;
  if (result.isError) throw new Error((result.content as { text: string }[])[0].text);
  assertToolResult(name, result);
  return result.structuredContent;
}

beforeAll(async () => {
  t = await startTestApp();
  pro = (await memberToken(t, 'pro')).secret;
  essential = (await memberToken(t, 'essential')).secret;
  projectId = (await createProject(t, { name: 'Harbour Lights', city: 'Toronto' })).id;
  const upload = async (category: string, name: string, pages: string[]) =>
    t.gql(
      UPLOAD,
      {
        input: {
          projectId,
          category,
          name,
          contentBase64: (await makePdf(pages)).toString('base64'),
        },
      },
      t.operator,
    );
  await upload(
    'features-finishes',
    'features.pdf',
    Array.from({ length: 7 }, (_, i) => `Suite ${i + 1}: quartz counters and oak floors.`),
  );
  await upload('deposit-structure', 'deposits.pdf', [
    '$5,000 on signing\nBalance to 5% in 30 days\n5% in 90 days\n5% at occupancy',
  ]);
  await t.app.deps.ingestion.queue.idle();
  // Enough documents for resources/list to need a second page (40 a page); these are not indexed.
  await t.app.deps.em
    .fork()
    .getConnection()
    .execute(
      `insert into document (project_id, name, category, is_latest, content_hash, byte_size, content, created_at)
       select ?, 'brochure-' || n || '.pdf', 'brochure', true, md5(n::text) || md5(n::text), 1, '\\x00'::bytea, now()
         from generate_series(1, 55) n`,
      [projectId],
    );
});
afterAll(async () => {
  await t.close();
});

describe('MCP 2026-07-28 with the v2 SDK client', () => {
  it('discovers, then runs the typical sequence statelessly: tools, search/fetch, cursors, resources, prompts', async () => {
    const client = await connect(pro);
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    const discovered = client.getDiscoverResult()!;
    expect(discovered.supportedVersions).toEqual([
      '2026-07-28',
      '2025-11-25',
      '2025-06-18',
      '2025-03-26',
      '2024-11-05',
    ]);
    expect(discovered.capabilities).toEqual({ tools: {}, resources: {}, prompts: {} });
    expect(discovered.instructions).toMatch(/find-projects-mentioning/);
    expect(client.getServerVersion()?.name).toBe('property-data-service');

    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name)).toContain('search-document-text');

    // Cursor to the end: 7 pages mention quartz, 2 a page.
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await call(client, 'search-document-text', {
        query: 'quartz',
        project_id: projectId,
        limit: 2,
        ...(cursor ? { cursor } : {}),
      });
      seen.push(...page.data.map((h: any) => h.page_number));
      cursor = page.meta.next_cursor;
      pages++;
    } while (cursor);
    expect([pages, seen.sort((a, b) => a - b)]).toEqual([4, [1, 2, 3, 4, 5, 6, 7]]);

    const found = await call(client, 'search', { query: 'quartz counters' });
    expect(found.results[0]).toMatchObject({
      id: expect.any(String),
      url: expect.stringMatching(/#page=\d+$/),
    });
    const fetched = await call(client, 'fetch', { id: found.results[0].id });
    expect(fetched.text).toMatch(/quartz counters/);

    // Resources: without a cursor the client walks every page (40 a page) and aggregates them.
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    expect([uris.length, new Set(uris).size]).toEqual([57, 57]);
    const features = resources.find((r) => r.name === 'features.pdf')!;
    const read = await client.readResource({ uri: features.uri });
    expect(read.contents).toHaveLength(7);
    expect(read.contents[6]).toEqual({
      uri: `${features.uri}/pages/7`,
      mimeType: 'text/plain',
      text: 'Suite 7: quartz counters and oak floors.',
    });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((x) => x.uriTemplate)).toContain(
      'pds://documents/{document_id}/pages/{page}',
    );

    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toContain('summarize-deposit-structure');
    const deposit = await client.getPrompt({
      name: 'summarize-deposit-structure',
      arguments: { project_id: String(projectId) },
    });
    expect(deposit.messages[0].content).toMatchObject({
      type: 'resource',
      resource: { mimeType: 'text/plain', text: expect.stringMatching(/\$5,000 on signing/) },
    });
    expect((deposit.messages[1].content as { text: string }).text).toMatch(/deposits\.pdf/);
    await client.close();
  });

  it('negotiates: auto mode probes with server/discover and stays on 2026-07-28; legacy mode uses initialize', async () => {
    const auto = await connect(pro, 'auto');
    expect(auto.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect((await auto.listPrompts()).prompts).toHaveLength(3);
    await auto.close();
    const legacy = await connect(pro, 'legacy');
    expect(legacy.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    const read = await legacy.listResourceTemplates();
    expect(read.resourceTemplates).toHaveLength(3);
    await legacy.close();
  });

  it('the plan applies as on the older revisions', async () => {
    const client = await connect(essential);
    const denied = (await client.callTool({ name: 'search', arguments: { query: 'quartz' } })) as any;
    expect(denied.isError).toBe(true);
    expect(denied.content[0].text).toMatch(/requires a Pro plan/);
    await expect(client.listResources()).rejects.toThrow(/requires a Pro plan/);
    await client.close();
  });
});

describe('2026-07-28 on the wire', () => {
  const meta = (extra: Record<string, unknown> = {}) => ({
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    ...extra,
  });
  const post = (body: Record<string, unknown>, headers: Record<string, string>) =>
    t.request('POST', '/mcp', {
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${pro}`,
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...body }),
    });
  const modernHeaders = (method: string, name?: string) => ({
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
    ...(name === undefined ? {} : { 'mcp-name': name }),
  });

  it('answers without a handshake, with resultType, serverInfo and cache hints, and no session header', async () => {
    const res = await post({ method: 'tools/list', params: { _meta: meta() } }, modernHeaders('tools/list'));
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(res.json.result).toMatchObject({
      resultType: 'complete',
      ttlMs: 3_600_000,
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'property-data-service' } },
    });
    const first = await post(
      { method: 'resources/list', params: { _meta: meta() } },
      modernHeaders('resources/list'),
    );
    expect([first.json.result.resources.length, first.json.result.cacheScope]).toEqual([40, 'private']);
    const second = await post(
      { method: 'resources/list', params: { cursor: first.json.result.nextCursor, _meta: meta() } },
      modernHeaders('resources/list'),
    );
    expect([second.json.result.resources.length, second.json.result.nextCursor]).toEqual([17, undefined]);
    const discover = await post(
      { method: 'server/discover', params: { _meta: meta() } },
      modernHeaders('server/discover'),
    );
    expect(discover.json.result).toMatchObject({ supportedVersions: expect.arrayContaining([MODERN]) });
    // Base64-encoded Mcp-Name is decoded before it is compared.
    const called = await post(
      {
        method: 'tools/call',
        params: { name: 'list-projects', arguments: {}, _meta: meta() },
      },
      modernHeaders('tools/call', `=?base64?${Buffer.from('list-projects').toString('base64')}?=`),
    );
    expect(called.json.result.resultType).toBe('complete');
    expect(called.json.result.isError).toBeFalsy();
  });

  it("refuses with the revision's errors: version, headers, removed and unknown methods, missing resources", async () => {
    const unsupported = await post(
      {
        method: 'tools/list',
        params: { _meta: meta({ 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }) },
      },
      { ...modernHeaders('tools/list'), 'mcp-protocol-version': '2099-01-01' },
    );
    expect([unsupported.status, unsupported.json.error.code, unsupported.json.error.data.requested]).toEqual([
      400,
      -32022,
      '2099-01-01',
    ]);
    const inMetaOnly = await post(
      {
        method: 'tools/list',
        params: { _meta: meta({ 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }) },
      },
      modernHeaders('tools/list'),
    );
    // The header and _meta disagree: the mismatch is reported first.
    expect([inMetaOnly.status, inMetaOnly.json.error.code]).toEqual([400, -32020]);
    for (const [headers, pattern] of [
      [{ 'mcp-method': 'tools/list' }, /MCP-Protocol-Version header is missing/],
      [{ ...modernHeaders('tools/list'), 'mcp-protocol-version': '2025-11-25' }, /header '2025-11-25'/],
      [modernHeaders('prompts/list'), /Mcp-Method header 'prompts\/list'/],
    ] as const) {
      const res = await post({ method: 'tools/list', params: { _meta: meta() } }, headers);
      expect([res.status, res.json.error.code]).toEqual([400, -32020]);
      expect(res.json.error.message).toMatch(pattern);
    }
    const wrongName = await post(
      { method: 'tools/call', params: { name: 'list-projects', arguments: {}, _meta: meta() } },
      modernHeaders('tools/call', 'search'),
    );
    expect([wrongName.status, wrongName.json.error.code]).toEqual([400, -32020]);
    const noName = await post(
      { method: 'resources/read', params: { uri: 'pds://documents/1', _meta: meta() } },
      modernHeaders('resources/read'),
    );
    expect([noName.status, noName.json.error.code]).toEqual([400, -32020]);
    const noCapabilities = await post(
      { method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } } },
      modernHeaders('tools/list'),
    );
    expect([noCapabilities.status, noCapabilities.json.error.code]).toEqual([400, -32602]);
    for (const method of ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'no/such']) {
      const res = await post({ method, params: { _meta: meta() } }, modernHeaders(method));
      expect([method, res.status, res.json.error.code]).toEqual([method, 404, -32601]);
    }
    const missing = await post(
      { method: 'resources/read', params: { uri: 'pds://documents/999999', _meta: meta() } },
      modernHeaders('resources/read', 'pds://documents/999999'),
    );
    expect([missing.status, missing.json.error.code]).toEqual([200, -32602]);
    // The same request from a 2025-era client: resource not found is -32002 there.
    const legacy = await post(
      { method: 'resources/read', params: { uri: 'pds://documents/999999' } },
      { 'mcp-protocol-version': '2025-11-25' },
    );
    expect([legacy.status, legacy.json.error.code]).toEqual([200, -32002]);
    expect(legacy.json.result).toBeUndefined();
  });
});
