import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { InvalidClientError, OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import {
  OAuthClientMetadataSchema,
  type OAuthClientInformationFull,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { LRUCache } from 'lru-cache';
import { guardedLookup, publicUrlProblem } from '../net/public-address.js';
import { applyRegistrationPolicy } from './registration-policy.js';

/**
 * OAuth Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, the MCP
 * revision of 2025-11-25's recommended registration): a client whose id is an HTTPS URL publishes
 * its metadata there, and this server fetches it instead of asking the client to register.
 *
 * The server connects where a stranger tells it to, so the fetch is fenced as the MCP
 * specification asks: HTTPS only, to a public address (src/net/public-address.ts, checked on the
 * URL and again on every resolved address), no redirects followed, at most
 * MAX_DOCUMENT_BYTES read within the timeout. The document must be a JSON object whose
 * `client_id` is the URL itself, naming no client secret (a public client, PKCE only), and it
 * passes the same policy as a dynamic registration (redirect URIs, grant types, field bounds).
 * A document is kept as long as its HTTP cache headers allow (never past MAX_FRESHNESS_SECONDS),
 * for at most CACHE_ENTRIES clients.
 */

export interface ClientMetadataSettings {
  /** Tests and development: loopback addresses may serve documents (still over HTTPS). */
  allowLoopback: boolean;
  /** The whole fetch, connection to last byte. */
  timeoutMs: number;
}

/** The MCP specification's suggested bound: a client's metadata is a few hundred bytes. */
export const MAX_DOCUMENT_BYTES = 5 * 1024;
export const MAX_CLIENT_ID_URL_LENGTH = 2048;
/** Freshness when the document's answer says nothing about caching. */
const DEFAULT_FRESHNESS_SECONDS = 300;
/** A document is fetched again at least once a day, whatever its headers say. */
const MAX_FRESHNESS_SECONDS = 24 * 60 * 60;
const CACHE_ENTRIES = 1000;

/**
 * Whether a client id names a metadata document (a URL) rather than a registration (a UUID). Any
 * URL counts, so that one this server will not fetch (http, a private address) is refused saying why.
 */
export function isMetadataDocumentClientId(clientId: unknown): clientId is string {
  return typeof clientId === 'string' && /^[a-z][a-z0-9+.-]*:\/\//iu.test(clientId);
}

/**
 * Why the URL cannot be a client id, or null when it can: the draft's rules (https, a path, no
 * fragment, no credentials, no dot segments) and a public address.
 */
export function clientIdUrlProblem(clientId: string, allowLoopback: boolean): string | null {
  const reachable = publicUrlProblem(clientId, {
    allowLoopback,
    protocols: ['https:'],
    maxLength: MAX_CLIENT_ID_URL_LENGTH,
  });
  if (reachable) return reachable;
  const url = new URL(clientId);
  if (url.pathname === '/' || url.pathname === '') return 'must have a path';
  if (clientId.includes('#')) return 'must not have a fragment';
  // `.` and `..` segments, written plainly or percent-encoded, in the path as written.
  const path = clientId.slice(url.origin.length).split(/[?#]/u, 1)[0];
  if (/(^|\/)(\.|%2e){1,2}(\/|$)/iu.test(path)) return 'must not have dot segments in its path';
  // The URL must be the client id as written: a URL the parser would rewrite is not one.
  if (url.href !== clientId) return 'must be written in its normalized form';
  return null;
}

interface Fetched {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

class DocumentError extends Error {}

/** One GET of the document, fenced by address, size and time; redirects are not followed. */
function fetchDocument(url: string, settings: ClientMetadataSettings): Promise<Fetched> {
  return new Promise((resolve, reject) => {
    const tooLarge = () => new DocumentError(`it is larger than ${MAX_DOCUMENT_BYTES} bytes`);
    const fail = (err: Error) => {
      clearTimeout(timer);
      reject(err);
      req.destroy();
    };
    const req = https.get(
      url,
      {
        lookup: guardedLookup(settings.allowLoopback),
        headers: { accept: 'application/json', 'user-agent': 'property-data-service-oauth' },
        agent: false,
        maxHeaderSize: 16 * 1024,
      },
      (res) => {
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > MAX_DOCUMENT_BYTES) {
          fail(tooLarge());
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_DOCUMENT_BYTES) fail(tooLarge());
          else chunks.push(chunk);
        });
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
        });
        res.on('error', fail);
      },
    );
    const timer = setTimeout(
      () => fail(new DocumentError(`it was not served within ${settings.timeoutMs} ms`)),
      settings.timeoutMs,
    );
    req.on('error', fail);
  });
}

/** The number of a `name=value` Cache-Control directive, or null. */
function directive(cacheControl: string, name: string): number | null {
  const found = new RegExp(`(?:^|,)\\s*${name}\\s*=\\s*"?(\\d+)"?\\s*(?:,|$)`, 'iu').exec(cacheControl);
  return found ? Number(found[1]) : null;
}

/**
 * How many seconds the answer may be reused (RFC 9111 §4.2.1 for a private cache): 0 for
 * `no-store` or `no-cache`; else `max-age` less `Age`; else `Expires` less `Date`; else
 * DEFAULT_FRESHNESS_SECONDS. Never more than MAX_FRESHNESS_SECONDS.
 */
export function freshnessSeconds(headers: IncomingHttpHeaders, now = Date.now()): number {
  const cacheControl = String(headers['cache-control'] ?? '');
  if (/(?:^|,)\s*(no-store|no-cache)\s*(?:[,=]|$)/iu.test(cacheControl)) return 0;
  const age = Number(headers.age ?? 0) || 0;
  let lifetime: number | null = directive(cacheControl, 'max-age');
  if (lifetime !== null) lifetime -= age;
  else if (headers.expires !== undefined) {
    const expires = Date.parse(headers.expires);
    const date = headers.date ? Date.parse(headers.date) : now;
    lifetime = Number.isNaN(expires) ? 0 : Math.floor((expires - (Number.isNaN(date) ? now : date)) / 1000);
  } else lifetime = DEFAULT_FRESHNESS_SECONDS;
  return Math.max(0, Math.min(MAX_FRESHNESS_SECONDS, lifetime));
}

/** A JSON media type: `application/json` or `application/<something>+json`. */
function isJson(contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';', 1)[0].trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/u.test(type);
}

/** The client a fetched document describes, or why it cannot be used. */
export function clientFromDocument(clientId: string, fetched: Fetched): OAuthClientInformationFull {
  if (fetched.status !== 200) {
    throw new DocumentError(
      fetched.status >= 300 && fetched.status < 400
        ? `it answered ${fetched.status}; redirects are not followed`
        : `it answered ${fetched.status}`,
    );
  }
  if (!isJson(fetched.headers['content-type']))
    throw new DocumentError('it is not served as application/json');
  let document: unknown;
  try {
    document = JSON.parse(fetched.body.toString('utf8'));
  } catch {
    throw new DocumentError('it is not valid JSON');
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document))
    throw new DocumentError('it is not a JSON object');
  const fields = document as Record<string, unknown>;
  if (fields.client_id !== clientId)
    throw new DocumentError('its client_id is not the URL it was fetched from');
  if ('client_secret' in fields || 'client_secret_expires_at' in fields)
    throw new DocumentError('it names a client secret; such a client authenticates with PKCE only');
  const method = fields.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none')
    throw new DocumentError("its token_endpoint_auth_method must be 'none' (PKCE, no client secret)");
  const parsed = OAuthClientMetadataSchema.safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new DocumentError(`its ${issue.path.join('.') || 'metadata'} is not valid: ${issue.message}`);
  }
  try {
    return applyRegistrationPolicy({ ...parsed.data, client_id: clientId });
  } catch (err) {
    if (err instanceof OAuthError) throw new DocumentError(err.message);
    throw err;
  }
}

function refused(clientId: string, reason: string): InvalidClientError {
  return new InvalidClientError(`The client metadata document at ${clientId} cannot be used: ${reason}.`);
}

export interface ResolvedClient {
  client: OAuthClientInformationFull;
  /** True when the document was fetched for this call, false when it came from the cache. */
  fetched: boolean;
}

/** Resolves metadata-document client ids, keeping each document as long as its headers allow. */
export class ClientMetadataDocuments {
  private readonly cache = new LRUCache<string, OAuthClientInformationFull>({ max: CACHE_ENTRIES });
  /** One fetch per document at a time: concurrent requests for it wait for the same answer. */
  private readonly inFlight = new Map<string, Promise<ResolvedClient>>();

  constructor(private readonly settings: ClientMetadataSettings) {}

  /** The client the document at `clientId` describes; InvalidClientError saying why when it cannot be used. */
  resolve(clientId: string): Promise<ResolvedClient> {
    const problem = clientIdUrlProblem(clientId, this.settings.allowLoopback);
    if (problem) return Promise.reject(refused(clientId.slice(0, 200), `the URL ${problem}`));
    const cached = this.cache.get(clientId);
    if (cached) return Promise.resolve({ client: cached, fetched: false });
    let pending = this.inFlight.get(clientId);
    if (!pending) {
      pending = this.load(clientId).finally(() => this.inFlight.delete(clientId));
      this.inFlight.set(clientId, pending);
    }
    return pending;
  }

  private async load(clientId: string): Promise<ResolvedClient> {
    let fetched: Fetched;
    try {
      fetched = await fetchDocument(clientId, this.settings);
    } catch (err) {
      const reason =
        err instanceof DocumentError
          ? err.message
          : (err as NodeJS.ErrnoException).code === 'EADDRNOTALLOWED'
            ? 'its host resolves to an address this service may not reach'
            : `it could not be fetched (${(err as Error).message.slice(0, 200)})`;
      throw refused(clientId, reason);
    }
    let client: OAuthClientInformationFull;
    try {
      client = clientFromDocument(clientId, fetched);
    } catch (err) {
      if (err instanceof DocumentError) throw refused(clientId, err.message);
      throw err;
    }
    const ttl = freshnessSeconds(fetched.headers);
    if (ttl > 0) this.cache.set(clientId, client, { ttl: ttl * 1000 });
    return { client, fetched: true };
  }
}
