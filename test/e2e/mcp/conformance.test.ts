/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in package.json)
 * run against a local instance of the real app, offline: the 0.1 line for the handshake revisions,
 * and the 0.2 line (installed as @modelcontextprotocol/conformance-next, an alpha: the first with
 * 2026-07-28 scenarios) for 2026-07-28, whose scenarios and exclusions are listed with the second
 * describe below.
 *
 * The app under test serves the suite's fixture resources, resource template and prompts
 * (test://static-text, test_simple_prompt, ...) beside its own, registered through createApp's
 * `mcpExtras` (SUITE_FIXTURES below; the production server registers none). They are answered by
 * the same JSON-RPC methods, after the same bearer token, plan and rate-limit checks, as the
 * documents and the research prompts.
 *
 * Scenarios run (each must pass with at least one SUCCESS check and no FAILURE or WARNING):
 *   server-initialize, ping, tools-list, dns-rebinding-protection, resources-list, prompts-list,
 *   resources-read-text, resources-read-binary, resources-templates-read, prompts-get-simple,
 *   prompts-get-with-args, prompts-get-embedded-resource, prompts-get-with-image.
 *
 * Scenarios excluded, and why (the same list is printed when the file runs, and a test fails if
 * the package lists a server scenario that is in neither list):
 *   logging-set-level             - no logging capability (deprecated in 2026-07-28): the server
 *                                   answers logging/setLevel with -32601.
 *   completion-complete           - no completions capability.
 *   tools-call-simple-text, tools-call-image, tools-call-audio, tools-call-embedded-resource,
 *   tools-call-mixed-content, tools-call-error
 *                                 - each calls a fixture tool of the suite's reference server
 *                                   (test_simple_text, test_image_content, test_audio_content,
 *                                   test_embedded_resource, test_multiple_content_types,
 *                                   test_error_handling); our tools are the service's own, and
 *                                   adding test tools to the production surface would be wrong. Text
 *                                   results and isError results of our own tools are asserted with
 *                                   the official SDK client in sdk-client.test.ts.
 *   tools-call-with-logging       - needs logging notifications and the fixture tool test_tool_with_logging.
 *   tools-call-with-progress      - needs progress notifications over an SSE response and the fixture
 *                                   tool test_tool_with_progress; we answer every POST with one
 *                                   application/json body.
 *   tools-call-sampling           - server-to-client sampling/createMessage request; not supported.
 *   tools-call-elicitation, elicitation-sep1034-defaults, elicitation-sep1330-enums
 *                                 - server-to-client elicitation/create requests; not supported.
 *   json-schema-2020-12           - checks the fixture tool json_schema_2020_12_tool (its exact schema);
 *                                   our tools' input/output schemas are checked in sdk-client.test.ts.
 *   server-sse-polling, server-sse-multiple-streams
 *                                 - in the package's "pending" suite; need sessions and SSE streams
 *                                   (GET /mcp answers 405 by design, the server is stateless); against
 *                                   our server they would only produce WARNING/INFO checks, a pass
 *                                   that could not fail.
 *   resources-subscribe, resources-unsubscribe
 *                                 - no resource subscriptions (subscribe: false; 2026-07-28 removed
 *                                   resources/subscribe).
 *
 * Authentication: POST /mcp requires `Authorization: Bearer <token>`. The conformance CLI (0.1.16)
 * has no option to send headers and no programmatic API (its one file is a CLI bundle that parses
 * argv when imported), so the CLI is spawned against a small in-test HTTP proxy that adds the
 * bearer header of a real MCP access token (created through the operator contract) and forwards
 * everything else unchanged: method, path, body, response, and the client's own headers including
 * Host and Origin (so dns-rebinding-protection still exercises our Origin check; a 401 cannot
 * satisfy it, the test asserts the 403). A control test runs server-initialize straight at the server without
 * the header and asserts the suite reports the failure, which shows the harness can fail.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import type { McpExtras } from '../../../facades/mcp/extras.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import {
  addMember,
  createAccessToken,
  createProject,
  createTeam,
  createUser,
} from '../../support/factories.js';
import { makePdf, UPLOAD } from '../../support/pdf.js';

const APPLICABLE = [
  'server-initialize',
  'ping',
  'tools-list',
  'dns-rebinding-protection',
  'resources-list',
  'prompts-list',
  'resources-read-text',
  'resources-read-binary',
  'resources-templates-read',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-embedded-resource',
  'prompts-get-with-image',
] as const;

/** A 1x1 PNG, the image of the binary resource and of the image prompt. */
const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** The resources and prompts the suite's scenarios read, with the contents each scenario's description gives. */
const SUITE_FIXTURES: McpExtras = {
  resources: [
    {
      uri: 'test://static-text',
      name: 'static-text',
      title: 'Static text',
      description: 'A static text resource for conformance testing',
      mimeType: 'text/plain',
      read: async () => [
        {
          uri: 'test://static-text',
          mimeType: 'text/plain',
          text: 'This is the content of the static text resource.',
        },
      ],
    },
    {
      uri: 'test://static-binary',
      name: 'static-binary',
      title: 'Static binary',
      description: 'A static binary resource (a PNG image) for conformance testing',
      mimeType: 'image/png',
      read: async () => [{ uri: 'test://static-binary', mimeType: 'image/png', blob: PNG_BASE64 }],
    },
  ],
  resourceTemplates: [
    {
      uriTemplate: 'test://template/{id}/data',
      name: 'template-data',
      title: 'Data by id',
      description: 'A resource template that substitutes its id, for conformance testing',
      mimeType: 'application/json',
      read: async (uri, { id }) => [
        {
          uri,
          mimeType: 'application/json',
          text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
        },
      ],
    },
  ],
  prompts: [
    {
      name: 'test_simple_prompt',
      title: 'Simple prompt',
      description: 'A prompt without arguments, for conformance testing',
      arguments: [],
      get: async () => ({
        messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
      }),
    },
    {
      name: 'test_prompt_with_arguments',
      title: 'Prompt with arguments',
      description: 'A prompt with two required arguments, for conformance testing',
      arguments: [
        { name: 'arg1', description: 'First test argument', required: true },
        { name: 'arg2', description: 'Second test argument', required: true },
      ],
      get: async ({ arg1, arg2 }) => ({
        messages: [
          {
            role: 'user',
            content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` },
          },
        ],
      }),
    },
    {
      name: 'test_prompt_with_embedded_resource',
      title: 'Prompt with an embedded resource',
      description: 'A prompt that embeds the resource its argument names, for conformance testing',
      arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
      get: async ({ resourceUri }) => ({
        messages: [
          {
            role: 'user',
            content: {
              type: 'resource',
              resource: {
                uri: resourceUri,
                mimeType: 'text/plain',
                text: 'Embedded resource content for testing.',
              },
            },
          },
          { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
        ],
      }),
    },
    {
      name: 'test_prompt_with_image',
      title: 'Prompt with an image',
      description: 'A prompt with image content, for conformance testing',
      arguments: [],
      get: async () => ({
        messages: [
          { role: 'user', content: { type: 'image', data: PNG_BASE64, mimeType: 'image/png' } },
          { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
        ],
      }),
    },
  ],
};

const FIXTURE_TOOL =
  "calls a fixture tool of the suite's reference server; our tools are the service's own (text and isError results of our tools are asserted in sdk-client.test.ts)";
const EXCLUDED: Record<string, string> = {
  'logging-set-level': 'no logging capability (deprecated in 2026-07-28; logging/setLevel answers -32601)',
  'completion-complete': 'no completions capability',
  'tools-call-simple-text': `test_simple_text: ${FIXTURE_TOOL}`,
  'tools-call-image': `test_image_content: ${FIXTURE_TOOL}`,
  'tools-call-audio': `test_audio_content: ${FIXTURE_TOOL}`,
  'tools-call-embedded-resource': `test_embedded_resource: ${FIXTURE_TOOL}`,
  'tools-call-mixed-content': `test_multiple_content_types: ${FIXTURE_TOOL}`,
  'tools-call-error': `test_error_handling: ${FIXTURE_TOOL}`,
  'tools-call-with-logging': 'needs logging notifications and the fixture tool test_tool_with_logging',
  'tools-call-with-progress':
    'needs progress notifications over an SSE response and the fixture tool test_tool_with_progress; every POST is answered with one JSON body',
  'tools-call-sampling': 'server-to-client sampling requests are not supported',
  'tools-call-elicitation': 'server-to-client elicitation requests are not supported',
  'elicitation-sep1034-defaults': 'server-to-client elicitation requests are not supported',
  'elicitation-sep1330-enums': 'server-to-client elicitation requests are not supported',
  'json-schema-2020-12':
    'checks the fixture tool json_schema_2020_12_tool; our tool schemas are checked in sdk-client.test.ts',
  'server-sse-polling':
    'pending suite; needs sessions and SSE streams (stateless server, GET /mcp is 405 by design): would only yield WARNING/INFO',
  'server-sse-multiple-streams':
    'pending suite; needs sessions and SSE streams (stateless server, GET /mcp is 405 by design): would only yield WARNING/INFO',
  'resources-subscribe': 'no resource subscriptions (subscribe: false; removed in 2026-07-28)',
  'resources-unsubscribe': 'no resource subscriptions (subscribe: false; removed in 2026-07-28)',
};

interface Check {
  id: string;
  name: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  description?: string;
  errorMessage?: string;
  details?: Record<string, any>;
}

interface Run {
  code: number | null;
  output: string;
  checks: Check[];
}

async function suite(name: string): Promise<{ version: string; cli: string }> {
  const pkgJson = createRequire(import.meta.url).resolve(`${name}/package.json`);
  const pkg = JSON.parse(await readFile(pkgJson, 'utf8')) as {
    version: string;
    bin: { conformance: string };
  };
  return { version: pkg.version, cli: join(dirname(pkgJson), pkg.bin.conformance) };
}
const pkg = await suite('@modelcontextprotocol/conformance');
/** The suite's 0.2 line (an alpha under its own alias): the only one with the 2026-07-28 scenarios. */
const next = await suite('@modelcontextprotocol/conformance-next');

/** Runs the conformance CLI in a child process (asynchronously: the server under test is in this process). */
function cli(args: string[], path = pkg.cli): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (b: Buffer) => (output += b.toString()));
    child.stderr.on('data', (b: Buffer) => (output += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output: stripVTControlCharacters(output) }));
  });
}

async function runScenario(
  url: string,
  scenario: string,
  extra: string[] = [],
  path = pkg.cli,
): Promise<Run> {
  const dir = await mkdtemp(join(tmpdir(), 'pds-conformance-'));
  try {
    const { code, output } = await cli(
      ['server', '--url', url, '--scenario', scenario, '--output-dir', dir, ...extra],
      path,
    );
    const [resultDir] = await readdir(dir);
    const checks = resultDir
      ? (JSON.parse(await readFile(join(dir, resultDir, 'checks.json'), 'utf8')) as Check[])
      : [];
    return { code, output, checks };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function explain(scenario: string, run: Run): string {
  const bad = run.checks.filter((c) => c.status !== 'SUCCESS' && c.status !== 'INFO');
  return [
    `conformance scenario ${scenario}: exit ${run.code}`,
    ...bad.map(
      (c) =>
        `  ${c.status} ${c.id}: ${c.errorMessage ?? c.description ?? ''}\n    ${JSON.stringify(c.details ?? {})}`,
    ),
    '--- CLI output ---',
    run.output,
  ].join('\n');
}

/** A pass-through HTTP proxy that adds the bearer header the CLI cannot send; nothing else changes. */
async function startAuthProxy(
  target: string,
  token: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: false });
  const server = http.createServer((req, res) => {
    const headers = { ...req.headers, authorization: req.headers.authorization ?? `Bearer ${token}` };
    const out = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', (err) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`proxy error: ${err.message}`);
    });
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}

let t: TestApp;
let token: string;
let proxy: Awaited<ReturnType<typeof startAuthProxy>>;

beforeAll(async () => {
  t = await startTestApp({}, { mcpExtras: SUITE_FIXTURES });
  const team = await createTeam(t, { plan: 'pro' });
  const user = await createUser(t);
  await addMember(t, team.id, user.id);
  token = (await createAccessToken(t, team.id, user.id)).secret;
  // One document, so resources/read is exercised by the scenarios that read the first resource.
  const project = await createProject(t, { name: 'Conformance Towers' });
  await t.gql(
    UPLOAD,
    {
      input: {
        projectId: project.id,
        category: 'brochure',
        name: 'brochure.pdf',
        contentBase64: (await makePdf(['Nine foot ceilings.'])).toString('base64'),
      },
    },
    t.operator,
  );
  await t.app.deps.ingestion.queue.idle();
  proxy = await startAuthProxy(t.url, token);
  console.log(
    [
      `@modelcontextprotocol/conformance ${pkg.version}: running ${APPLICABLE.join(', ')}`,
      'Excluded server scenarios:',
      ...Object.entries(EXCLUDED).map(([name, why]) => `  - ${name}: ${why}`),
    ].join('\n'),
  );
});
afterAll(async () => {
  await proxy?.close();
  await t?.close();
});

describe(`MCP conformance suite (@modelcontextprotocol/conformance ${pkg.version})`, () => {
  it('every server scenario the package lists is either run here or excluded with a reason', async () => {
    const { code, output } = await cli(['list', '--server']);
    expect(code).toBe(0);
    const listed = [...output.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]).sort();
    expect(listed.length).toBeGreaterThan(0);
    expect(listed).toEqual([...APPLICABLE, ...Object.keys(EXCLUDED)].sort());
    for (const name of APPLICABLE) expect(EXCLUDED[name]).toBeUndefined();
  });

  it.each(APPLICABLE)('%s passes against the local server', async (scenario) => {
    const run = await runScenario(`${proxy.url}/mcp`, scenario);
    const summary = run.checks.map((c) => `${c.id}=${c.status}`);
    if (
      run.code !== 0 ||
      run.checks.some((c) => c.status === 'FAILURE' || c.status === 'WARNING') ||
      !run.checks.some((c) => c.status === 'SUCCESS')
    ) {
      throw new Error(explain(scenario, run));
    }
    console.log(`${scenario}: ${summary.join(', ')}`);
    if (scenario === 'dns-rebinding-protection') {
      // The proxy supplies the token, so the rejection has to come from the Origin check itself.
      const rejected = run.checks.find((c) => c.id === 'localhost-host-rebinding-rejected');
      const accepted = run.checks.find((c) => c.id === 'localhost-host-valid-accepted');
      expect([rejected?.details?.statusCode, accepted?.details?.statusCode]).toEqual([403, 200]);
    }
  });

  it('control: without the bearer header the suite reports server-initialize as failed', async () => {
    const run = await runScenario(`${t.url}/mcp`, 'server-initialize');
    expect(run.code).toBe(1);
    const check = run.checks.find((c) => c.id === 'server-initialize');
    expect(check?.status).toBe('FAILURE');
    expect(check?.errorMessage).toMatch(/No access token supplied/);
  });

  it('the fixtures are listed, read and got by the same methods, after the same credential check', async () => {
    const rpc = async (method: string, params: Record<string, unknown>, secret: string | null = token) => {
      const res = await t.request('POST', '/mcp', {
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...(secret ? { authorization: `Bearer ${secret}` } : {}),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      return { status: res.status, result: res.json.result, error: res.json.error };
    };
    for (const [method, params] of [
      ['resources/read', { uri: 'test://static-text' }],
      ['prompts/get', { name: 'test_simple_prompt' }],
    ] as const) {
      const anonymous = await rpc(method, params, null);
      expect([method, anonymous.status, anonymous.result]).toEqual([method, 401, undefined]);
    }
    const resources = await rpc('resources/list', {});
    expect(resources.result.resources.map((r: { uri: string }) => r.uri)).toEqual([
      expect.stringMatching(/^pds:\/\/documents\/\d+$/),
      'test://static-text',
      'test://static-binary',
    ]);
    const templates = await rpc('resources/templates/list', {});
    expect(templates.result.resourceTemplates.map((r: { name: string }) => r.name)).toEqual([
      'document',
      'document-page',
      'project-documents',
      'template-data',
    ]);
    const prompts = await rpc('prompts/list', {});
    expect(prompts.result.prompts.map((p: { name: string }) => p.name)).toEqual([
      'compare-incentives-in-city',
      'summarize-deposit-structure',
      'find-feature-across-projects',
      'test_simple_prompt',
      'test_prompt_with_arguments',
      'test_prompt_with_embedded_resource',
      'test_prompt_with_image',
    ]);
    // Arguments are checked as the research prompts' are; a URI no template matches is not found.
    const missing = await rpc('prompts/get', {
      name: 'test_prompt_with_arguments',
      arguments: { arg1: 'a' },
    });
    expect([missing.error?.code, missing.error?.message]).toEqual([
      -32602,
      "Missing required argument 'arg2'",
    ]);
    const unknown = await rpc('prompts/get', {
      name: 'test_simple_prompt',
      arguments: { extra: 'x' },
    });
    expect(unknown.error?.code).toBe(-32602);
    const notFound = await rpc('resources/read', { uri: 'test://template/123/other' });
    expect([notFound.error?.code, notFound.error?.data?.uri]).toEqual([-32002, 'test://template/123/other']);
  });
});

/**
 * The 2026-07-28 scenarios, from the suite's 0.2 line (the 0.1 line has none). Run at the
 * revision's wire (--spec-version 2026-07-28) through the same bearer proxy.
 */
const MODERN_APPLICABLE = [
  'server-stateless',
  'tools-list',
  'resources-list',
  'prompts-list',
  'resources-read-text',
  'resources-read-binary',
  'resources-templates-read',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-embedded-resource',
  'prompts-get-with-image',
  'sep-2164-resource-not-found',
  'caching',
  'dns-rebinding-protection',
  'http-header-validation',
  'input-required-result-unsupported-methods',
] as const;

const NO_INPUT_REQUESTS =
  "calls a fixture tool or prompt of the suite's reference server that asks the client for input (multi round-trip requests); no tool or prompt here needs input from the client";
/** The scenarios 2026-07-28 requires that are not run, and why. */
const MODERN_EXCLUDED: Record<string, string> = {
  'completion-complete': 'no completions capability',
  'tools-call-simple-text': `test_simple_text: ${FIXTURE_TOOL}`,
  'tools-call-image': `test_image_content: ${FIXTURE_TOOL}`,
  'tools-call-audio': `test_audio_content: ${FIXTURE_TOOL}`,
  'tools-call-embedded-resource': `test_embedded_resource: ${FIXTURE_TOOL}`,
  'tools-call-mixed-content': `test_multiple_content_types: ${FIXTURE_TOOL}`,
  'tools-call-error': `test_error_handling: ${FIXTURE_TOOL}`,
  'tools-call-with-progress':
    'needs progress notifications over an SSE response and the fixture tool test_tool_with_progress',
  'server-sse-multiple-streams': 'needs SSE response streams; every POST is answered with one JSON body',
  'input-required-result-basic-elicitation': NO_INPUT_REQUESTS,
  'input-required-result-basic-sampling': NO_INPUT_REQUESTS,
  'input-required-result-basic-list-roots': NO_INPUT_REQUESTS,
  'input-required-result-request-state': NO_INPUT_REQUESTS,
  'input-required-result-multiple-input-requests': NO_INPUT_REQUESTS,
  'input-required-result-multi-round': NO_INPUT_REQUESTS,
  'input-required-result-missing-input-response': NO_INPUT_REQUESTS,
  'input-required-result-non-tool-request': NO_INPUT_REQUESTS,
  'input-required-result-result-type': NO_INPUT_REQUESTS,
  'input-required-result-tampered-state': NO_INPUT_REQUESTS,
  'input-required-result-capability-check': NO_INPUT_REQUESTS,
  'input-required-result-ignore-extra-params': NO_INPUT_REQUESTS,
  'input-required-result-validate-input': NO_INPUT_REQUESTS,
};

/**
 * Checks of server-stateless that call diagnostic tools only the suite's reference server has
 * (test_missing_capability, test_streaming_elicitation, test_logging_tool): the suite reports them
 * as FAILURE marked untestable. Every other check of the scenario must pass.
 */
const UNTESTABLE_WITHOUT_FIXTURE_TOOLS = [
  'sep-2575-server-rejects-undeclared-capability',
  'sep-2575-missing-capability-http-400',
  'sep-2575-http-server-no-independent-requests-on-stream',
  'sep-2575-server-no-log-without-loglevel',
];

describe(`MCP conformance suite, 2026-07-28 (@modelcontextprotocol/conformance ${next.version})`, () => {
  it('every server scenario the suite requires for 2026-07-28 is either run here or excluded with a reason', async () => {
    const { code, output } = await cli(['list', '--server', '--requirements', '2026-07-28'], next.cli);
    expect(code).toBe(0);
    const serverPart = output.slice(output.indexOf('Server scenarios'), output.indexOf('Client scenarios'));
    const required = [...serverPart.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]).sort();
    expect(required.length).toBeGreaterThan(0);
    const run = MODERN_APPLICABLE.filter((name) => required.includes(name));
    expect([...run, ...Object.keys(MODERN_EXCLUDED)].sort()).toEqual(required);
  });

  it.each(MODERN_APPLICABLE)('%s passes at the 2026-07-28 wire', async (scenario) => {
    const run = await runScenario(`${proxy.url}/mcp`, scenario, ['--spec-version', '2026-07-28'], next.cli);
    const untestable = scenario === 'server-stateless' ? UNTESTABLE_WITHOUT_FIXTURE_TOOLS : [];
    const bad = run.checks.filter(
      (c) => (c.status === 'FAILURE' || c.status === 'WARNING') && !untestable.includes(c.id),
    );
    if (
      bad.length ||
      !run.checks.some((c) => c.status === 'SUCCESS') ||
      (run.code !== 0 && !untestable.length)
    )
      throw new Error(explain(scenario, run));
    for (const id of untestable) {
      const check = run.checks.find((c) => c.id === id);
      expect([id, check?.status, check?.details?.untestable]).toEqual([id, 'FAILURE', true]);
    }
    if (scenario === 'caching') {
      // The team has a document, so the read's hints are checked too, not skipped.
      expect(run.checks.find((c) => c.id === 'sep-2549-resources-read-caching-hints')?.status).toBe(
        'SUCCESS',
      );
    }
    console.log(`${scenario} (2026-07-28): ${run.checks.map((c) => `${c.id}=${c.status}`).join(', ')}`);
  });
});
