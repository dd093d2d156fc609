import { type AppError, ERROR_CATALOGUE } from '../../src/errors/catalogue.js';

export const JSONRPC = {
  PARSE: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL: -32603,
  /** Server error range: the service cannot answer now, or refused before any method ran. */
  SERVER_ERROR: -32000,
};

export interface ToolResult {
  content: { type: 'text'; text: string }[];
  structuredContent?: unknown;
  isError?: boolean;
}

export function toolError(message: string): ToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/**
 * How the tool server answers an error: a tool result a model can act on, or a JSON-RPC error with
 * its HTTP status and headers.
 */
export type McpFailure =
  | { kind: 'result'; result: ToolResult }
  | {
      kind: 'error';
      status: number;
      code: number;
      message: string;
      /** Sent as Retry-After, and as the JSON-RPC error's data so a client library sees it too. */
      retryAfterSeconds?: number;
      /** A 401 names the protected-resource metadata in WWW-Authenticate (MCP authorization). */
      challenge?: boolean;
    };

/** What a model can do when something it named was not found. */
const NOT_FOUND_HINTS: Record<NonNullable<AppError['details']['subject']>, string> = {
  project: 'use list-projects to find project ids',
  chunk: 'run search-document-text again for fresh chunk ids',
  document: 'use list-project-documents (include_historical true) to find document ids',
};

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * The domain's message in the tools' words: a field the domain names (`projectId: …`) is the
 * tool argument `project_id`, and a NOT_FOUND says which tool finds a valid id.
 */
function inToolWords(err: AppError): string {
  let message = err.message;
  for (const field of Object.keys(err.details.fields ?? {}))
    if (message.startsWith(`${field}:`)) message = snakeCase(field) + message.slice(field.length);
  const hint = err.details.subject && NOT_FOUND_HINTS[err.details.subject];
  return hint ? `${message}; ${hint}` : message;
}

/** The words a model reads for a tool failure. */
function toolMessage(err: AppError): string {
  if (err.code === 'RATE_LIMITED')
    return `Rate limit exceeded: wait ${err.details.retryAfterSeconds ?? 60} seconds before calling again.`;
  if (err.code === 'BAD_USER_INPUT') return `Invalid arguments: ${inToolWords(err)}`;
  return inToolWords(err);
}

/**
 * The one place the tool server maps the error catalogue to MCP, by each code's `mcp` column.
 * `inToolCall`: the error belongs to a `tools/call` (a tool failure is then a result with
 * `isError`, which the model can act on); otherwise it refused the message before any method ran.
 */
export function mcpFailure(err: AppError, inToolCall: boolean): McpFailure {
  switch (ERROR_CATALOGUE[err.code].mcp) {
    case 'http-401':
      return {
        kind: 'error',
        status: 401,
        code: JSONRPC.INVALID_REQUEST,
        message: err.message,
        challenge: true,
      };
    case 'tool-error':
      if (inToolCall) return { kind: 'result', result: toolError(toolMessage(err)) };
      return {
        kind: 'error',
        status: err.httpStatus,
        code: JSONRPC.SERVER_ERROR,
        message: err.message,
        retryAfterSeconds: err.code === 'RATE_LIMITED' ? (err.details.retryAfterSeconds ?? 60) : undefined,
      };
    case 'unavailable':
      // Not the tool's failure: the whole call is to be retried, so a JSON-RPC error keeping the id.
      return {
        kind: 'error',
        status: 503,
        code: JSONRPC.SERVER_ERROR,
        message: err.message,
        retryAfterSeconds: err.details.retryAfterSeconds ?? 5,
      };
    case 'internal':
      return { kind: 'error', status: 500, code: JSONRPC.INTERNAL, message: 'Internal error' };
  }
}

/** MCP error codes the revisions define (JSON-RPC server-error range). */
export const MCP_ERROR = {
  /** Resource not found, 2024-11-05 to 2025-11-25; 2026-07-28 uses INVALID_PARAMS instead. */
  RESOURCE_NOT_FOUND_LEGACY: -32002,
  /** 2026-07-28: HTTP headers do not match the body, or a required one is missing. */
  HEADER_MISMATCH: -32020,
  /** 2026-07-28: the request names a protocol version this server does not serve. */
  UNSUPPORTED_PROTOCOL_VERSION: -32022,
};

/**
 * How a method other than `tools/call` (resources, prompts) answers a failure of its operation:
 * always a JSON-RPC error, in the words a tool error would use. `notFoundCode`: what the method's
 * revision calls "not found" (a missing resource is -32002 before 2026-07-28, -32602 from it).
 */
export function methodFailure(err: AppError, notFoundCode: number): McpFailure {
  const failure = mcpFailure(err, false);
  if (failure.kind !== 'error' || ERROR_CATALOGUE[err.code].mcp !== 'tool-error') return failure;
  const code =
    err.code === 'NOT_FOUND'
      ? notFoundCode
      : err.code === 'BAD_USER_INPUT'
        ? JSONRPC.INVALID_PARAMS
        : JSONRPC.SERVER_ERROR;
  // The request itself was well formed: the answer is a JSON-RPC error in a 200, as for any method.
  return { kind: 'error', status: 200, code, message: toolMessage(err) };
}
