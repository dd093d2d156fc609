import { JSONRPC, MCP_ERROR } from './errors.js';

/**
 * The 2026-07-28 MCP revision, served beside the handshake revisions on the same /mcp. A request
 * is on it when its `params._meta` names the protocol version: there is no `initialize` and no
 * session, each request carries its version and client capabilities, and the HTTP request
 * mirrors the method (and the tool, prompt or resource it names) in headers that must agree with
 * the body. Results carry `resultType`, the server's identity in `_meta`, and cache hints on
 * lists and reads.
 */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

export const SERVER_INFO = {
  name: 'property-data-service',
  title: 'Property Data Service',
  version: '0.1.0',
};

const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

/** Methods the 2026-07-28 revision removed: a request on it naming one gets "method not found". */
export const MODERN_REMOVED_METHODS = new Set([
  'initialize',
  'notifications/initialized',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
]);

type Headers = Record<string, string | string[] | undefined>;

/** The protocol version a request's `_meta` names, when it has one (the mark of a 2026-07-28 request). */
export function requestedModernVersion(params: unknown): unknown {
  const meta = (params as { _meta?: unknown } | null | undefined)?._meta;
  if (!meta || typeof meta !== 'object') return undefined;
  return (meta as Record<string, unknown>)[META_VERSION];
}

export interface Refusal {
  status: number;
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

/** A header value in the revision's Base64 form (`=?base64?…?=`) decoded; other values as sent. */
function decodeHeader(value: string): string | null {
  const m = /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/.exec(value);
  if (!m) return value;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  return Buffer.from(decoded, 'utf8').toString('base64').replace(/=+$/, '') === m[1].replace(/=+$/, '')
    ? decoded
    : null;
}

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(',') : value);

/**
 * Checks a 2026-07-28 request against the revision's rules before any method runs: the
 * MCP-Protocol-Version header equal to the version in `_meta` (else HeaderMismatch, -32020), a
 * version this server serves (else UnsupportedProtocolVersion, -32022, listing the supported
 * ones), client capabilities in `_meta` (else -32602), and the Mcp-Method and Mcp-Name headers
 * equal to the body (-32020). All are HTTP 400. Null when the request passes.
 */
export function checkModernRequest(
  message: { method: string; params?: unknown },
  version: unknown,
  headers: Headers,
  supported: readonly string[],
): Refusal | null {
  if (version === undefined) {
    return {
      status: 400,
      code: JSONRPC.INVALID_PARAMS,
      message: `_meta["${META_VERSION}"] is required on ${MODERN_PROTOCOL_VERSION} requests (the MCP-Protocol-Version header names it)`,
    };
  }
  const mismatch = (text: string): Refusal => ({
    status: 400,
    code: MCP_ERROR.HEADER_MISMATCH,
    message: `Header mismatch: ${text}`,
  });
  const headerVersion = single(headers['mcp-protocol-version']);
  if (headerVersion !== version)
    return mismatch(
      `MCP-Protocol-Version header ${headerVersion === undefined ? 'is missing' : `'${headerVersion}'`} but _meta names ${JSON.stringify(version)}`,
    );
  if (typeof version !== 'string' || !supported.includes(version) || version !== MODERN_PROTOCOL_VERSION) {
    return {
      status: 400,
      code: MCP_ERROR.UNSUPPORTED_PROTOCOL_VERSION,
      message: `Unsupported protocol version ${JSON.stringify(version)}: this server serves ${supported.join(', ')} (2026-07-28 per request in _meta; the others after initialize)`,
      data: {
        supported: [...supported],
        requested: typeof version === 'string' ? version : JSON.stringify(version),
      },
    };
  }
  const meta = (message.params as { _meta: Record<string, unknown> })._meta;
  const capabilities = meta[META_CAPABILITIES];
  if (!capabilities || typeof capabilities !== 'object' || Array.isArray(capabilities)) {
    return {
      status: 400,
      code: JSONRPC.INVALID_PARAMS,
      message: `_meta["${META_CAPABILITIES}"] is required on 2026-07-28 requests (an object; {} for none)`,
    };
  }
  const method = single(headers['mcp-method']);
  if (method !== message.method)
    return mismatch(
      `Mcp-Method header ${method === undefined ? 'is missing' : `'${method}'`} but the body's method is '${message.method}'`,
    );
  const params = (message.params ?? {}) as { name?: unknown; uri?: unknown };
  const named =
    message.method === 'tools/call' || message.method === 'prompts/get'
      ? params.name
      : message.method === 'resources/read'
        ? params.uri
        : undefined;
  if (named !== undefined) {
    const raw = single(headers['mcp-name']);
    const name = raw === undefined ? undefined : decodeHeader(raw);
    if (name !== named)
      return mismatch(
        `Mcp-Name header ${name === undefined ? 'is missing' : name === null ? 'is not valid Base64' : `'${name.slice(0, 200)}'`} but the body names ${JSON.stringify(named).slice(0, 200)}`,
      );
  }
  return null;
}

/** How long a 2026-07-28 client may keep a result, and whether shared caches may: per method. */
function cacheHints(method: string): { ttlMs: number; cacheScope: 'public' | 'private' } | null {
  switch (method) {
    case 'server/discover':
    case 'tools/list':
    case 'prompts/list':
    case 'resources/templates/list':
      // The same for every caller, and fixed for the life of a deployment.
      return { ttlMs: 3_600_000, cacheScope: 'public' };
    case 'resources/list':
    case 'resources/read':
      // What the caller's plan may see: documents are added and re-indexed.
      return { ttlMs: 60_000, cacheScope: 'private' };
    default:
      return null;
  }
}

/** A 2026-07-28 result: `resultType`, the server's identity, and cache hints where the method has them. */
export function modernResult(method: string, result: unknown): Record<string, unknown> {
  const base = (result && typeof result === 'object' ? result : {}) as Record<string, unknown>;
  const meta = (base._meta && typeof base._meta === 'object' ? base._meta : {}) as Record<string, unknown>;
  return {
    ...base,
    ...cacheHints(method),
    resultType: 'complete',
    _meta: { ...meta, [META_SERVER_INFO]: SERVER_INFO },
  };
}
