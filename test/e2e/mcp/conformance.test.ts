/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in package.json)
 * run against a local instance of the real app, offline.
 *
 * Scenarios run (each must pass with at least one SUCCESS check and no FAILURE or WARNING):
 *   server-initialize, ping, tools-list, dns-rebinding-protection, resources-list, prompts-list.
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
 *                                   test_error_handling); our tool list is the spec's five tools, and
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
 *   resources-read-text, resources-read-binary, resources-templates-read
 *                                 - read the suite's fixture resources (test://static-text,
 *                                   test://static-binary, test://template/{id}/data); our resources are
 *                                   the documents (pds://...). resources/read, templates and their
 *                                   errors are asserted with both SDK clients (sdk-client.test.ts,
 *                                   sdk-v2-client.test.ts).
 *   resources-subscribe, resources-unsubscribe
 *                                 - no resource subscriptions (subscribe: false; 2026-07-28 removed
 *                                   resources/subscribe).
 *   prompts-get-simple, prompts-get-with-args, prompts-get-embedded-resource, prompts-get-with-image
 *                                 - get the suite's fixture prompts (test_simple_prompt,
 *                                   test_prompt_with_arguments, test_prompt_with_embedded_resource,
 *                                   test_prompt_with_image); our prompts are the research prompts,
 *                                   asserted with both SDK clients, including an embedded resource.
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
import { startTestApp, type TestApp } from '../../support/app.js';
import { addMember, createAccessToken, createTeam, createUser } from '../../support/factories.js';

const APPLICABLE = [
  'server-initialize',
  'ping',
  'tools-list',
  'dns-rebinding-protection',
  'resources-list',
  'prompts-list',
] as const;

const FIXTURE_TOOL =
  "calls a fixture tool of the suite's reference server; our tool list is the spec's five tools (text and isError results of our tools are asserted in sdk-client.test.ts)";
const FIXTURE_RESOURCE =
  "reads a fixture resource of the suite's reference server; our resources are the documents (pds://...), read with both SDK clients in sdk-client.test.ts and sdk-v2-client.test.ts";
const FIXTURE_PROMPT =
  "gets a fixture prompt of the suite's reference server; our prompts are the research prompts, got with both SDK clients";
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
  'resources-read-text': `test://static-text: ${FIXTURE_RESOURCE}`,
  'resources-read-binary': `test://static-binary: ${FIXTURE_RESOURCE}`,
  'resources-templates-read': `test://template/{id}/data: ${FIXTURE_RESOURCE}`,
  'resources-subscribe': 'no resource subscriptions (subscribe: false; removed in 2026-07-28)',
  'resources-unsubscribe': 'no resource subscriptions (subscribe: false; removed in 2026-07-28)',
  'prompts-get-simple': `test_simple_prompt: ${FIXTURE_PROMPT}`,
  'prompts-get-with-args': `test_prompt_with_arguments: ${FIXTURE_PROMPT}`,
  'prompts-get-embedded-resource': `test_prompt_with_embedded_resource: ${FIXTURE_PROMPT}`,
  'prompts-get-with-image': `test_prompt_with_image: ${FIXTURE_PROMPT}`,
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

const pkgJson = createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json');
const pkg = JSON.parse(await readFile(pkgJson, 'utf8')) as { version: string; bin: { conformance: string } };
const CLI = join(dirname(pkgJson), pkg.bin.conformance);

/** Runs the conformance CLI in a child process (asynchronously: the server under test is in this process). */
function cli(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (b: Buffer) => (output += b.toString()));
    child.stderr.on('data', (b: Buffer) => (output += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output: stripVTControlCharacters(output) }));
  });
}

async function runScenario(url: string, scenario: string): Promise<Run> {
  const dir = await mkdtemp(join(tmpdir(), 'pds-conformance-'));
  try {
    const { code, output } = await cli(['server', '--url', url, '--scenario', scenario, '--output-dir', dir]);
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
let proxy: Awaited<ReturnType<typeof startAuthProxy>>;

beforeAll(async () => {
  t = await startTestApp();
  const team = await createTeam(t, { plan: 'pro' });
  const user = await createUser(t);
  await addMember(t, team.id, user.id);
  const token = (await createAccessToken(t, team.id, user.id)).secret;
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
});
