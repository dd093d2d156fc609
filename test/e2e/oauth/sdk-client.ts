import { createServer as createHttpServer } from 'node:http';
import { freePort } from '../../support/net.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { AppOptions } from '../../../src/app.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { authorizeInBrowser, type Browser, type ConsentForm, type Person } from './browser.js';

/** The client's loopback callback. Nothing listens there: the browser stops at the redirect. */
export const CALLBACK = 'http://127.0.0.1:1/callback';

/** Opens the authorization URL in "the user's browser"; returns the redirect back to the client, if it saw one. */
export type OpenBrowser = (authorizationUrl: URL) => Promise<URL | null>;

/**
 * An OAuthClientProvider as an MCP client application implements it: keeps the registration,
 * the tokens and the PKCE verifier, and hands the authorization URL to a browser.
 */
export class TestClientProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  /** The redirect back to the client after consent (has `code` or `error`). */
  lastRedirect: URL | null = null;

  constructor(
    private readonly openBrowser: OpenBrowser,
    readonly redirectUrl: string = CALLBACK,
    private readonly clientName = 'Headless Test Client',
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.clientName,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    return 'client-state-42';
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.client = info;
  }

  tokens(): OAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    this.lastRedirect = await this.openBrowser(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }

  get code(): string {
    const code = this.lastRedirect?.searchParams.get('code');
    if (!code) throw new Error(`no authorization code: ${this.lastRedirect?.href ?? 'no redirect'}`);
    return code;
  }
}

/** The provider whose "browser" is the cookie-keeping fetch client, signing in as `person`. */
export class HeadlessClientProvider extends TestClientProvider {
  constructor(
    browser: Browser,
    person: Person,
    choose?: (form: ConsentForm) => { team?: string; decision: 'allow' | 'deny' },
  ) {
    super(async (url) => (await authorizeInBrowser(browser, url.href, person, choose)).redirect);
  }
}

export { freePort };

/**
 * Starts the service with PUBLIC_BASE_URL naming its real address, as the OAuth metadata, the
 * consent redirect and the token audience all derive from it.
 */
export async function startOAuthTestApp(
  env: Record<string, string> = {},
  opts: AppOptions = {},
): Promise<TestApp> {
  const port = await freePort();
  return startTestApp(
    { PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, ...env },
    // Every test here comes from 127.0.0.1: the per-address limit is tested on its own.
    {
      policies: {
        oauth: { points: 1_000_000, durationSeconds: 60, keyedBy: 'ip' },
        'client-registration': { points: 1_000_000, durationSeconds: 60, keyedBy: 'ip' },
      },
      ...opts,
    },
  );
}

export interface CallbackServer {
  /** The redirect URI the client registers: `http://127.0.0.1:<port>/callback`. */
  url: string;
  /** The next redirect the browser delivers (with `code` or `error`). */
  next(): Promise<URL>;
  close(): Promise<void>;
}

/**
 * The loopback listener a native MCP client opens for the redirect back from the browser
 * (OAuth 2.1 native apps): it answers the browser with a page and hands the query to the client.
 */
export async function startCallbackServer(): Promise<CallbackServer> {
  const arrived: URL[] = [];
  const waiting: ((url: URL) => void)[] = [];
  const server = createHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    if (url.pathname !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Connected</title><p>You can close this window.</p>');
    const waiter = waiting.shift();
    if (waiter) waiter(url);
    else arrived.push(url);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/callback`,
    next: () => {
      const url = arrived.shift();
      return url ? Promise.resolve(url) : new Promise((resolve) => waiting.push(resolve));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
