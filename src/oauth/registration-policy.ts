import {
  CustomOAuthError,
  InvalidClientMetadataError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { unstorableTextAt } from '../errors/text.js';

/**
 * What this server accepts of a client's metadata, registered dynamically or published in a
 * metadata document alike.
 */

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const MAX_REDIRECT_URIS = 10;
const MAX_URI_LENGTH = 2000;
const GRANT_TYPES = ['authorization_code', 'refresh_token'];
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:']);

function invalidRedirect(message: string): CustomOAuthError {
  return new CustomOAuthError('invalid_redirect_uri', message);
}

/**
 * OAuth 2.1 redirect URIs: https, http only on a loopback host (native apps on an ephemeral port),
 * or a private-use scheme (`cursor://…`); never a fragment. Matching later is exact.
 */
function checkRedirectUri(uri: string, index: number): void {
  if (uri.length > MAX_URI_LENGTH) throw invalidRedirect(`redirect_uris[${index}] is too long`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\s]/.test(uri))
    throw invalidRedirect(`redirect_uris[${index}] contains whitespace or control characters`);
  const url = new URL(uri);
  if (url.hash || uri.includes('#'))
    throw invalidRedirect(`redirect_uris[${index}] must not contain a fragment`);
  if (url.protocol === 'http:') {
    if (!LOOPBACK_HOSTS.has(url.hostname)) {
      throw invalidRedirect(`redirect_uris[${index}] must use https (http is allowed only for localhost)`);
    }
    return;
  }
  if (url.protocol !== 'https:' && FORBIDDEN_SCHEMES.has(url.protocol)) {
    throw invalidRedirect(`redirect_uris[${index}] uses a scheme that cannot receive a redirect`);
  }
}

/**
 * Server policy applied to a registration the SDK handler has already schema-checked (RFC 7591
 * §3.2.1 lets the server replace requested values). Every client is public: it authenticates with
 * PKCE, not a secret, so no client secret is ever stored or returned.
 */
export function applyRegistrationPolicy(client: OAuthClientInformationFull): OAuthClientInformationFull {
  if (unstorableTextAt(client) !== null) {
    throw new InvalidClientMetadataError('metadata must not contain NUL characters or unpaired surrogates');
  }
  const uris = client.redirect_uris;
  if (uris.length === 0) throw invalidRedirect('at least one redirect_uri is required');
  if (uris.length > MAX_REDIRECT_URIS)
    throw invalidRedirect(`at most ${MAX_REDIRECT_URIS} redirect_uris are allowed`);
  uris.forEach(checkRedirectUri);
  const grantTypes = client.grant_types ?? GRANT_TYPES;
  const unsupportedGrant = grantTypes.find((g) => !GRANT_TYPES.includes(g));
  if (unsupportedGrant !== undefined) {
    throw new InvalidClientMetadataError(`grant type '${unsupportedGrant}' is not supported`);
  }
  if (!grantTypes.includes('authorization_code')) {
    throw new InvalidClientMetadataError("grant_types must include 'authorization_code'");
  }
  const responseTypes = client.response_types ?? ['code'];
  if (responseTypes.some((r) => r !== 'code')) {
    throw new InvalidClientMetadataError("only the 'code' response type is supported");
  }
  checkFieldBounds(client);
  // Public clients authenticate with PKCE: a secret or keys are never stored.
  const {
    client_secret: _secret,
    client_secret_expires_at: _expiry,
    jwks_uri: _jwksUri,
    ...withKeys
  } = client;
  const rest = { ...withKeys } as typeof withKeys & { jwks?: unknown };
  delete rest.jwks;
  const stored = {
    ...rest,
    grant_types: grantTypes,
    response_types: responseTypes,
    token_endpoint_auth_method: 'none',
  };
  if (JSON.stringify(stored).length > MAX_METADATA_CHARACTERS) {
    throw new InvalidClientMetadataError(
      `client metadata must be at most ${MAX_METADATA_CHARACTERS} characters of JSON`,
    );
  }
  return stored;
}

/** Text fields a registration may carry and the most characters each may hold. */
const FIELD_BOUNDS: Readonly<Record<string, number>> = {
  client_name: 200,
  client_uri: MAX_URI_LENGTH,
  logo_uri: MAX_URI_LENGTH,
  tos_uri: MAX_URI_LENGTH,
  policy_uri: MAX_URI_LENGTH,
  software_id: 200,
  software_version: 200,
  scope: 1000,
};
const MAX_CONTACTS = 5;
const MAX_CONTACT_LENGTH = 320;
/** The whole stored registration; a client with every field at its bound stays under it. */
const MAX_METADATA_CHARACTERS = 32_000;

/** Every stored field is bounded: a registration costs the same few kilobytes whoever sends it. */
function checkFieldBounds(client: OAuthClientInformationFull): void {
  const fields = client as unknown as Record<string, unknown>;
  for (const [field, max] of Object.entries(FIELD_BOUNDS)) {
    const value = fields[field];
    if (typeof value === 'string' && value.length > max)
      throw new InvalidClientMetadataError(`${field} must be at most ${max} characters`);
  }
  const contacts = client.contacts ?? [];
  if (contacts.length > MAX_CONTACTS)
    throw new InvalidClientMetadataError(`at most ${MAX_CONTACTS} contacts are allowed`);
  if (contacts.some((c) => c.length > MAX_CONTACT_LENGTH))
    throw new InvalidClientMetadataError(`each contact must be at most ${MAX_CONTACT_LENGTH} characters`);
}
