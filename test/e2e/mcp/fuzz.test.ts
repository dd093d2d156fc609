import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { startTestApp, type TestApp } from '../../support/app.js';
import { errorLogCapture } from '../../support/error-log.js';
import { assertToolResult } from '../../support/mcp-contract.js';
import {
  addMember,
  createAccessToken,
  createProject,
  createTeam,
  createUser,
} from '../../support/factories.js';
import { fuzzRuns, valueFor, type JsonSchema } from '../../support/schema-arbitrary.js';

/**
 * Every tool of the committed contract (schema/mcp-tools.json), called with arguments generated
 * from its input schema, boundary values first (2^31, 2^53, NUL, unpaired surrogates, 1 MB
 * strings, deep JSON, wrong JSON types, unknown and prototype keys). Whatever is sent: no 5xx, no
 * JSON-RPC internal error, an invalid call is an isError result with a sentence, a valid one
 * matches the tool's output schema, no error-level log line, and the service answers afterwards.
 * Fixed seed (test/support/property-seed.ts); PROPERTY_RUNS_FACTOR multiplies the runs.
 */
const TOOLS = (
  JSON.parse(readFileSync(new URL('../../../schema/mcp-tools.json', import.meta.url), 'utf8')) as {
    tools: { name: string; inputSchema: JsonSchema }[];
  }
).tools;

const { logStream, errorLines } = errorLogCapture();

let t: TestApp;
let token: string;

beforeAll(async () => {
  // A generous limit: the fuzzer sends hundreds of calls with one token.
  t = await startTestApp(
    { LOG_LEVEL: 'warn' },
    {
      logger: true,
      logStream,
      policies: { mcp: { points: 100_000, durationSeconds: 60, keyedBy: 'token' } },
    },
  );
  const team = await createTeam(t, { plan: 'elite' });
  const user = await createUser(t);
  await addMember(t, team.id, user.id);
  token = (await createAccessToken(t, team.id, user.id)).secret;
  await createProject(t);
});
afterAll(async () => {
  await t.close();
});

const METHODS = [
  'initialize',
  'server/discover',
  'ping',
  'tools/list',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'prompts/list',
  'prompts/get',
  'resources/subscribe',
  'subscriptions/listen',
];

const post = (body: string | Uint8Array, headers: Record<string, string> = {}) =>
  t.request('POST', '/mcp', {
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
    body,
  });

const count = async () =>
  Number(
    (
      await t.app.deps.em
        .fork()
        .getConnection()
        .execute('select (select count(*) from project) + (select count(*) from document) as n')
    )[0].n,
  );

describe('MCP bad input', () => {
  it.each(TOOLS.map((tool) => [tool.name, tool] as const))(
    '%s: arguments generated from its input schema get a result or a tool error, never a 5xx or an internal error',
    async (name, tool) => {
      const before = await count();
      await fc.assert(
        fc.asyncProperty(valueFor(tool.inputSchema), async (args) => {
          const res = await post(
            JSON.stringify({
              jsonrpc: '2.0',
              id: 1,
              method: 'tools/call',
              params: { name, arguments: args },
            }),
          );
          const where = `${name} ${JSON.stringify(args)?.slice(0, 300)} → ${res.status} ${res.text.slice(0, 300)}`;
          expect([where, res.status < 500]).toEqual([where, true]);
          expect([where, res.json?.error?.code]).not.toEqual([where, -32603]);
          expect(res.json.error ?? res.json.result).toBeDefined();
          if (res.json.result) {
            expect(typeof res.json.result.content[0].text).toBe('string');
            if (res.json.result.isError) expect(res.json.result.structuredContent).toBeUndefined();
            else assertToolResult(name, res.json.result);
          }
        }),
        { numRuns: fuzzRuns(40) },
      );
      expect(await count()).toBe(before);
      expect(errorLines).toEqual([]);
      // Still answering, with the right answer.
      const after = await post(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'list-projects', arguments: {} },
        }),
      );
      expect(after.json.result.isError).toBeFalsy();
      expect(after.json.result.structuredContent.meta.total).toBeGreaterThan(0);
    },
  );

  it('an unknown tool or arguments of any shape: a JSON-RPC error or a tool error, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...TOOLS.map((tool) => tool.name), 'nope'),
        fc.anything({ maxDepth: 3 }),
        async (name, args) => {
          const res = await post(
            JSON.stringify({
              jsonrpc: '2.0',
              id: 1,
              method: 'tools/call',
              params: { name, arguments: args },
            }),
          );
          expect(res.status).toBeLessThan(500);
          expect(res.json?.error?.code).not.toBe(-32603);
          expect(res.json.error ?? res.json.result).toBeDefined();
        },
      ),
      { numRuns: fuzzRuns(60) },
    );
    expect(errorLines).toEqual([]);
  });

  it('random params to every other method, on either revision: a JSON-RPC error or a result, never a 5xx', async () => {
    const before = await count();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...METHODS),
        fc.oneof(
          fc.anything({ maxDepth: 3 }),
          fc.record({
            uri: fc.oneof(fc.string(), fc.constantFrom('pds://documents/1', 'pds://documents/1/pages/2')),
            name: fc.oneof(
              fc.string(),
              fc.constantFrom('summarize-deposit-structure', 'compare-incentives-in-city'),
            ),
            arguments: fc.anything({ maxDepth: 2 }),
            cursor: fc.anything({ maxDepth: 1 }),
          }),
        ),
        fc.boolean(),
        async (method, params, modern) => {
          const withMeta =
            modern && params && typeof params === 'object' && !Array.isArray(params)
              ? {
                  ...params,
                  _meta: {
                    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                    'io.modelcontextprotocol/clientCapabilities': {},
                  },
                }
              : params;
          const res = await post(
            JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: withMeta }),
            modern ? { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method } : {},
          );
          expect(res.status).toBeLessThan(500);
          expect(res.json.error ?? res.json.result).toBeDefined();
        },
      ),
      { numRuns: 150 },
    );
    expect(await count()).toBe(before);
  });

  it('raw bodies: garbage, deep JSON, invalid UTF-8 and wrong shapes are refused cleanly', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.json(), fc.uint8Array({ maxLength: 200 })), async (body) => {
        const res = await post(typeof body === 'string' ? body : body);
        expect(res.status).toBeLessThan(500);
      }),
      { numRuns: fuzzRuns(100) },
    );
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    expect((await post(deep)).status).toBe(400);
    const invalidUtf8 = new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    expect((await post(invalidUtf8)).status).toBeLessThan(500);
    const huge = await post(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'search-document-text', arguments: { query: 'a'.repeat(5000) } },
      }),
    );
    expect(huge.json.result.isError).toBe(true);
    expect(huge.json.result.content[0].text).toMatch(/query must NOT have more than 200 characters/);
    expect((await t.request('GET', '/healthz')).status).toBe(200);
    expect(errorLines).toEqual([]);
  });
});
