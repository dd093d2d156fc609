import type { ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import {
  Client as V2Client,
  type OAuthDiscoveryState,
  StreamableHTTPClientTransport as V2Transport,
  UnauthorizedError as V2UnauthorizedError,
} from '@modelcontextprotocol/client';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TestApp } from '../../support/app.js';
import { addMember, createProject, createTeam, createUser } from '../../support/factories.js';
import { ContractClient } from '../../support/mcp-contract.js';
import { selfSignedCertificate } from '../../support/tls-terminator.js';
import { authorizeInBrowser, Browser } from './browser.js';
import { authorizeUrl, exchange, pkcePair } from './oauth-client.js';
import { CALLBACK, HeadlessClientProvider, startOAuthTestApp } from './sdk-client.js';

/**
 * OAuth Client ID Metadata Documents: a client whose id is the HTTPS URL of its metadata. The
 * documents are served over local HTTPS with a throwaway certificate that this process trusts
 * (the service runs in it); loopback addresses are allowed for the test only
 * (OAUTH_CLIENT_METADATA_ALLOW_LOOPBACK).
 */

const TIMEOUT_MS = 600;

let t: TestApp;
let docs: Server;
let origin: string;
let previousCAs: string[];
const fetches = new Map<string, number>();
const hanging = new Set<ServerResponse>();

function document(path: string, extra: Record<string, unknown> = {}) {
  return JSON.stringify({
    client_id: `${origin}${path}`,
    client_name: 'Metadata Document Client',
    redirect_uris: [CALLBACK],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...extra,
  });
}

beforeAll(async () => {
  const { key, cert } = selfSignedCertificate();
  docs = createServer({ key, cert }, (req, res) => {
    const path = new URL(req.url ?? '/', 'https://x').pathname;
    fetches.set(path, (fetches.get(path) ?? 0) + 1);
    const json = (body: string, headers: Record<string, string> = {}) =>
      res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(body);
    switch (path) {
      case '/client.json':
      case '/v2-client.json':
      case '/consented.json':
        return json(document(path), { 'cache-control': 'max-age=60' });
      case '/uncached.json':
        return json(document(path), { 'cache-control': 'no-store' });
      case '/mismatch.json':
        return json(document('/someone-else.json'));
      case '/secret.json':
        return json(
          document(path, { client_secret: 'shh', token_endpoint_auth_method: 'client_secret_post' }),
        );
      case '/big.json':
        return json(document(path, { software_id: 'x'.repeat(6000) }));
      case '/big-chunked.json': {
        // No content-length: the size is only known while reading.
        res.writeHead(200, { 'content-type': 'application/json' });
        for (let i = 0; i < 8; i++) res.write(' '.repeat(1000));
        return res.end(document(path));
      }
      case '/moved.json':
        return res.writeHead(302, { location: `${origin}/client.json` }).end();
      case '/text.json':
        return res.writeHead(200, { 'content-type': 'text/html' }).end(document(path));
      case '/slow.json':
        // Headers at once, the body never: the whole fetch is timed, not only the connection.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"client_id":');
        hanging.add(res);
        return;
      default:
        return res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => docs.listen(0, '127.0.0.1', resolve));
  origin = `https://127.0.0.1:${(docs.address() as AddressInfo).port}`;
  previousCAs = getCACertificates('default');
  setDefaultCACertificates([...previousCAs, cert]);
  t = await startOAuthTestApp({
    OAUTH_CLIENT_METADATA_ALLOW_LOOPBACK: 'true',
    OAUTH_CLIENT_METADATA_TIMEOUT_MS: String(TIMEOUT_MS),
  });
});

afterAll(async () => {
  await t.close();
  for (const res of hanging) res.destroy();
  docs.closeAllConnections();
  await new Promise<void>((resolve) => docs.close(() => resolve()));
  setDefaultCACertificates(previousCAs);
});

async function agentMember() {
  const team = await createTeam(t, { plan: 'pro', agentTier: 'agent' });
  const user = await createUser(t);
  await addMember(t, team.id, user.id);
  return { team, user };
}

/**
 * The SDK client's provider, naming its metadata document's URL as its client id. The v2 client
 * also keeps what discovery found, to check the callback comes from the same authorization server.
 */
class MetadataDocumentClientProvider extends HeadlessClientProvider {
  clientMetadataUrl = '';
  private discovery: OAuthDiscoveryState | undefined;

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }
}

/** GET /oauth/authorize for `clientId` with PKCE; the answer itself, its redirect not followed. */
async function authorize(clientId: string, redirectUri = CALLBACK) {
  const res = await fetch(authorizeUrl(t.url, { clientId, challenge: pkcePair().challenge, redirectUri }), {
    redirect: 'manual',
  });
  const text = await res.text();
  return {
    status: res.status,
    location: res.headers.get('location'),
    json: (text.startsWith('{') ? JSON.parse(text) : {}) as { error?: string; error_description?: string },
  };
}

describe('Client ID Metadata Documents', () => {
  it('advertises support beside dynamic registration', async () => {
    const res = await t.request('GET', '/.well-known/oauth-authorization-server');
    expect(res.json.client_id_metadata_document_supported).toBe(true);
    expect(res.json.registration_endpoint).toBe(`${t.config.publicBaseUrl}/oauth/register`);
  });

  it('the official SDK client connects with its document URL as client id: PKCE, consent, token, /mcp', async () => {
    const projectName = (await createProject(t, { city: 'Kingston' })).name;
    const { user } = await agentMember();
    const provider = new MetadataDocumentClientProvider(new Browser(t.url), user);
    provider.clientMetadataUrl = `${origin}/client.json`;
    const serverUrl = new URL(`${t.config.publicBaseUrl}/mcp`);

    const transport = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider });
    await expect(
      new ContractClient({ name: 'cimd-test', version: '1.0.0' }).connect(transport),
    ).rejects.toThrow(UnauthorizedError);
    // No registration: the SDK took the document URL as its client id.
    expect(provider.client?.client_id).toBe(`${origin}/client.json`);
    expect(provider.lastRedirect?.searchParams.get('state')).toBe('client-state-42');
    await transport.finishAuth(provider.code);
    expect(provider.saved?.access_token).toMatch(/^pds_oat_/);

    const client = new ContractClient({ name: 'cimd-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider }));
    const result = await client.callTool({ name: 'list-projects', arguments: { city: 'Kingston' } });
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { data: { name: string }[] }).data.map((p) => p.name)).toContain(
      projectName,
    );
    await client.close();
    // Fetched once for the whole flow (authorize, token): kept for its max-age.
    expect(fetches.get('/client.json')).toBe(1);
  });

  it('the v2 SDK client on the 2026-07-28 revision connects the same way', async () => {
    const projectName = (await createProject(t, { city: 'Lakeside' })).name;
    const { user } = await agentMember();
    const provider = new MetadataDocumentClientProvider(new Browser(t.url), user);
    provider.clientMetadataUrl = `${origin}/v2-client.json`;
    const serverUrl = new URL(`${t.config.publicBaseUrl}/mcp`);
    const client = () =>
      new V2Client(
        { name: 'cimd-v2-test', version: '1.0.0' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );

    const transport = new V2Transport(serverUrl, { authProvider: provider });
    await expect(client().connect(transport)).rejects.toThrow(V2UnauthorizedError);
    expect(provider.client?.client_id).toBe(`${origin}/v2-client.json`);
    await transport.finishAuth(provider.code);
    expect(provider.saved?.access_token).toMatch(/^pds_oat_/);

    const connected = client();
    await connected.connect(new V2Transport(serverUrl, { authProvider: provider }));
    expect(connected.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const result = await connected.callTool({ name: 'list-projects', arguments: { city: 'Lakeside' } });
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { data: { name: string }[] }).data.map((p) => p.name)).toContain(
      projectName,
    );
    await connected.close();
  });

  it("names the client from its document on the consent page, with the document's host", async () => {
    const { user } = await agentMember();
    const result = await authorizeInBrowser(
      new Browser(t.url),
      authorizeUrl(t.url, { clientId: `${origin}/consented.json`, challenge: pkcePair().challenge }),
      user,
    );
    expect(result.redirect?.searchParams.get('code')).toBeTruthy();
    expect(result.consent?.html).toContain(
      '<h1>Connect Metadata Document Client to Property Data Service</h1>',
    );
    expect(result.consent?.html).toMatch(/published at\s*<strong>127\.0\.0\.1:\d+<\/strong>/);
  });

  it('fetches a no-store document again on every use', async () => {
    const before = fetches.get('/uncached.json') ?? 0;
    for (let i = 0; i < 2; i++) {
      const res = await authorize(`${origin}/uncached.json`);
      expect(res.status).toBe(302);
      expect(res.location).toContain(`${t.config.publicBaseUrl}/oauth/consent?request=`);
    }
    expect(fetches.get('/uncached.json')).toBe(before + 2);
  });

  it.each([
    ['an http client id', () => `http://127.0.0.1:1/client.json`, /must be an https:\/\/ URL/],
    ['a private address', () => 'https://10.0.0.7/client.json', /private, loopback, link-local or reserved/],
    [
      'a link-local address',
      () => 'https://169.254.169.254/latest/meta-data',
      /private, loopback, link-local/,
    ],
    ['a URL without a path', () => `${origin}/`, /must have a path/],
    ['a URL with a fragment', () => `${origin}/client.json#x`, /fragment/],
    ['a document larger than 5 KB', () => `${origin}/big.json`, /larger than 5120 bytes/],
    [
      'a larger document sent without its length',
      () => `${origin}/big-chunked.json`,
      /larger than 5120 bytes/,
    ],
    ['a document naming another client_id', () => `${origin}/mismatch.json`, /client_id is not the URL/],
    ['a document with a client secret', () => `${origin}/secret.json`, /client secret/],
    ['a redirect to the document', () => `${origin}/moved.json`, /redirects are not followed/],
    ['a document that is not JSON', () => `${origin}/text.json`, /application\/json/],
    ['a missing document', () => `${origin}/missing.json`, /answered 404/],
    ['a server too slow to answer', () => `${origin}/slow.json`, new RegExp(`within ${TIMEOUT_MS} ms`)],
  ])('refuses %s, answering directly (no redirect)', async (_what, clientId, message) => {
    const res = await authorize(clientId());
    expect(res.status).toBe(400);
    expect(res.location).toBeNull();
    expect(res.json.error).toBe('invalid_client');
    expect(res.json.error_description).toMatch(message);
  });

  it('uses redirect URIs exactly as published: another port of the same loopback URI is refused', async () => {
    const otherPort = CALLBACK.replace(':1/', ':2/');
    const res = await authorize(`${origin}/client.json`, otherPort);
    expect(res.status).toBe(400);
    expect(res.location).toBeNull();
    expect(res.json.error_description).toMatch(/exactly one of the redirect_uris/);
    const elsewhere = await authorize(`${origin}/client.json`, 'https://attacker.example/cb');
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.location).toBeNull();
  });

  it('refuses the token endpoint for a client whose document cannot be used', async () => {
    const res = await exchange(t, {
      clientId: `${origin}/mismatch.json`,
      code: 'x',
      verifier: 'y'.repeat(43),
    });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('invalid_client');
    expect(res.json.error_description).toMatch(/client_id is not the URL/);
  });
});
