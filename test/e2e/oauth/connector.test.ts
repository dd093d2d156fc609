import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TestApp } from '../../support/app.js';
import { addMember, createProject, createTeam, createUser, setPlan } from '../../support/factories.js';
import { ContractClient } from '../../support/mcp-contract.js';
import { Browser } from './browser.js';
import { HeadlessClientProvider, startOAuthTestApp } from './sdk-client.js';

let t: TestApp;
let base: string;
let serverUrl: URL;
let projectName: string;

beforeAll(async () => {
  t = await startOAuthTestApp();
  base = t.config.publicBaseUrl;
  serverUrl = new URL(`${base}/mcp`);
  projectName = (await createProject(t, { city: 'Kingston' })).name;
});
afterAll(async () => {
  await t.close();
});

async function agentMember(tier = 'agent') {
  const team = await createTeam(t, { plan: 'pro', agentTier: tier });
  const user = await createUser(t);
  await addMember(t, team.id, user.id);
  return { team, user };
}

/** An MCP client session authorised by the provider's current tokens. */
async function connect(provider: HeadlessClientProvider): Promise<Client> {
  const client = new ContractClient({ name: 'connector-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider }));
  return client;
}

async function listKingston(client: Client): Promise<string[]> {
  const result = await client.callTool({ name: 'list-projects', arguments: { city: 'Kingston' } });
  expect(result.isError).toBeFalsy();
  const body = result.structuredContent as { data: { name: string }[] };
  return body.data.map((p) => p.name);
}

describe('MCP SDK client through the connector flow', () => {
  it('is sent to sign in on the 401, consents, finishes auth, calls tools over /mcp and refreshes', async () => {
    const { user } = await agentMember();
    const browser = new Browser(base);
    const provider = new HeadlessClientProvider(browser, user);

    // The first connection has no token: the server's 401 (WWW-Authenticate with the resource
    // metadata) starts discovery, registration and the browser step, then the SDK stops.
    const transport = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider });
    await expect(
      new ContractClient({ name: 'connector-test', version: '1.0.0' }).connect(transport),
    ).rejects.toThrow(UnauthorizedError);
    expect(provider.client?.client_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(provider.lastRedirect?.searchParams.get('state')).toBe('client-state-42');
    await transport.finishAuth(provider.code);
    const first = provider.saved!;
    expect(first.access_token).toMatch(/^pds_oat_/);
    expect(first.refresh_token).toMatch(/^pds_ort_/);
    expect(first.token_type).toBe('Bearer');

    const client = await connect(provider);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['list-projects', 'search-document-text', 'fetch-document-context']),
    );
    expect(await listKingston(client)).toContain(projectName);
    await client.close();

    // Refresh: auth() posts the stored refresh token and stores the rotated pair.
    expect(await auth(provider, { serverUrl })).toBe('AUTHORIZED');
    const second = provider.saved!;
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    const again = await connect(provider);
    expect(await listKingston(again)).toContain(projectName);
    await again.close();
  });

  it('the SDK client is refused by /mcp once the team leaves the Agent tier', async () => {
    const { team, user } = await agentMember('enterprise');
    const provider = new HeadlessClientProvider(new Browser(base), user);
    expect(await auth(provider, { serverUrl })).toBe('REDIRECT');
    expect(await auth(provider, { serverUrl, authorizationCode: provider.code })).toBe('AUTHORIZED');
    const client = await connect(provider);
    expect(await listKingston(client)).toContain(projectName);
    await client.close();

    await setPlan(t, team.id, { agentTier: 'none' });
    const res = await fetch(serverUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${provider.saved!.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/resource_metadata=/);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(
      /Agent or Enterprise/,
    );
  });

  it('publishes protected-resource metadata naming /mcp and this authorization server', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
    ]) {
      const res = await t.request('GET', path);
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ resource: `${base}/mcp`, authorization_servers: [base] });
    }
  });
});
