import type { Transport } from '../auth/authenticate.js';
import type { AppConfig } from '../config.js';
import { USER_PATHS } from '../users/paths.js';

/** Every public address of the authorization server, derived once from PUBLIC_BASE_URL. */
export interface OAuthUrls {
  /** RFC 8414 issuer: the service's base URL, so its metadata lives at the root well-known path. */
  issuer: string;
  authorize: string;
  token: string;
  register: string;
  revoke: string;
  consent: string;
  login: string;
  /** The one protected resource tokens are issued for (RFC 8707). */
  mcpResource: string;
}

export const OAUTH_PATHS = {
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  register: '/oauth/register',
  revoke: '/oauth/revoke',
  consent: '/oauth/consent',
  login: USER_PATHS.login,
  logout: USER_PATHS.logout,
  authorizationServerMetadata: '/.well-known/oauth-authorization-server',
} as const;

export function oauthUrls(config: Pick<AppConfig, 'publicBaseUrl'>): OAuthUrls {
  const base = config.publicBaseUrl;
  return {
    issuer: base,
    authorize: base + OAUTH_PATHS.authorize,
    token: base + OAUTH_PATHS.token,
    register: base + OAUTH_PATHS.register,
    revoke: base + OAUTH_PATHS.revoke,
    consent: base + OAUTH_PATHS.consent,
    login: base + OAUTH_PATHS.login,
    mcpResource: `${base}/mcp`,
  };
}

/** The resource indicator each transport answers to; a token bound elsewhere is refused there. */
export function resourceOf(transport: Transport, config: Pick<AppConfig, 'publicBaseUrl'>): string {
  switch (transport) {
    case 'mcp':
      return `${config.publicBaseUrl}/mcp`;
    case 'graphql':
      return `${config.publicBaseUrl}/graphql`;
    case 'rest':
      return `${config.publicBaseUrl}/api/v1`;
  }
}

/** Compares resource indicators as URLs (scheme and host case, default ports), never as raw strings. */
export function sameResource(a: string, b: string): boolean {
  if (!URL.canParse(a) || !URL.canParse(b)) return false;
  const ua = new URL(a);
  const ub = new URL(b);
  ua.hash = '';
  ub.hash = '';
  return ua.href === ub.href;
}
