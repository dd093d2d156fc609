import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { createContext } from '../../../src/context/context.js';
import type { TestApp } from '../../support/app.js';
import { addMember, createTeam, createUser } from '../../support/factories.js';
import { Browser } from './browser.js';
import { HeadlessClientProvider, startOAuthTestApp } from './sdk-client.js';

let t: TestApp;
let base: string;

beforeAll(async () => {
  t = await startOAuthTestApp();
  base = t.config.publicBaseUrl;
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

/** What /mcp sees: the one context for the tool-server transport. */
async function mcpViewer(accessToken: string) {
  const ctx = await createContext(
    { transport: 'mcp', authorization: `Bearer ${accessToken}`, ip: '10.1.1.1', requestId: 'test' },
    t.app.deps,
  );
  return ctx.viewer;
}

describe('MCP SDK client through the connector flow', () => {
  it('registers, signs in, consents, exchanges the code, uses and refreshes the token', async () => {
    const { team, user } = await agentMember();
    const serverUrl = `${base}/mcp`;
    const provider = new HeadlessClientProvider(new Browser(base), user);

    expect(await auth(provider, { serverUrl })).toBe('REDIRECT');
    expect(provider.client?.client_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(provider.lastRedirect?.searchParams.get('state')).toBe('client-state-42');

    expect(await auth(provider, { serverUrl, authorizationCode: provider.code })).toBe('AUTHORIZED');
    const first = provider.saved!;
    expect(first.access_token).toMatch(/^pds_oat_/);
    expect(first.refresh_token).toMatch(/^pds_ort_/);
    expect(first.token_type).toBe('Bearer');

    const viewer = await mcpViewer(first.access_token);
    expect(viewer).toMatchObject({
      credential: { kind: 'oauth-token', resource: serverUrl },
      team: { id: Number(team.id) },
      user: { id: Number(user.id) },
      role: 'member',
    });

    // Refresh: the SDK posts the stored refresh token and stores the rotated pair.
    expect(await auth(provider, { serverUrl })).toBe('AUTHORIZED');
    const second = provider.saved!;
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(await mcpViewer(second.access_token)).toMatchObject({ team: { id: Number(team.id) } });
  });
});
