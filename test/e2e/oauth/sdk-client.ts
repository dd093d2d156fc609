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

/**
 * An OAuthClientProvider as an MCP client application implements it, except that "opening the
 * browser" drives the headless browser through sign-in and consent and keeps the returned code.
 */
export class HeadlessClientProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  /** The redirect back to the client after consent (has `code` or `error`). */
  lastRedirect: URL | null = null;

  constructor(
    private readonly browser: Browser,
    private readonly person: Person,
    private readonly choose?: (form: ConsentForm) => { team?: string; decision: 'allow' | 'deny' },
  ) {}

  get redirectUrl(): string {
    return CALLBACK;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Headless Test Client',
      redirect_uris: [CALLBACK],
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
    const result = await authorizeInBrowser(this.browser, url.href, this.person, this.choose);
    this.lastRedirect = result.redirect;
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
    { policies: { oauth: { points: 1_000_000, durationSeconds: 60, keyedBy: 'ip' } }, ...opts },
  );
}
