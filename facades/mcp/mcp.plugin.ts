import { Ajv, type ValidateFunction } from 'ajv';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import { JSONRPCErrorException, JSONRPCServer, type JSONRPCRequest } from 'json-rpc-2.0';
import { createContext, type AppDeps, type RequestContext } from '../../src/context/context.js';
import { AppError } from '../../src/errors/catalogue.js';
import { runOperation } from '../operation.js';
import { toolCallTimer } from '../../src/metrics/metrics.js';
import { JSONRPC, MCP_ERROR, mcpFailure, methodFailure, toolError, type ToolResult } from './errors.js';
import { Prompts } from './prompts.js';
import type { McpExtras } from './extras.js';
import { Resources } from './resources.js';
import { loadTools, type Tool } from './tools.js';
import {
  checkModernRequest,
  MODERN_PROTOCOL_VERSION,
  MODERN_REMOVED_METHODS,
  modernResult,
  requestedModernVersion,
  SERVER_INFO,
} from './revision.js';

/** Revisions served on /mcp: 2026-07-28 statelessly (no handshake), the older ones after `initialize`. */
export const SUPPORTED_PROTOCOL_VERSIONS = [
  MODERN_PROTOCOL_VERSION,
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
] as const;
/** What `initialize` answers a client asking for a version it does not know: the newest handshake revision. */
const LATEST_LEGACY_VERSION = '2025-11-25';
const LEGACY_VERSIONS = SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v !== MODERN_PROTOCOL_VERSION) as string[];
const MAX_BODY_BYTES = 1024 * 1024;

export const INSTRUCTIONS = `Property Data Service: real-estate development projects (pre-construction condos and towns) and the text of their PDFs.
Typical sequence: 1. find-projects-mentioning to find which projects mention a concrete term; 2. search-document-text with that project_id to get matching chunks; 3. fetch-document-context with a chunk_id to read the surrounding text before citing it (cite stable_citation).
Matching is exact keyword plus synonyms, not natural language: search concrete terms, try a few variants and merge results; 0 matches after a few variants means the term is not mentioned. list-projects browses the catalogue; list-project-documents shows what a project published and what could not be indexed.`;

interface CallParams {
  ctx: RequestContext;
  /** The request is on the 2026-07-28 revision (protocol version in its `_meta`). */
  modern: boolean;
}

const CAPABILITIES = {
  tools: { listChanged: false },
  resources: { subscribe: false, listChanged: false },
  prompts: { listChanged: false },
};
/** 2026-07-28 moved list-change and resource notifications to subscriptions/listen, which is not served. */
const MODERN_CAPABILITIES = { tools: {}, resources: {}, prompts: {} };

function ajvMessage(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .map((e) => {
      const at = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '';
      if (e.keyword === 'additionalProperties')
        return `unknown argument '${String(e.params.additionalProperty)}'`;
      if (e.keyword === 'required') return `missing required argument '${String(e.params.missingProperty)}'`;
      return `${at || 'arguments'} ${e.message ?? 'is invalid'}`;
    })
    .join('; ');
}

function buildRpc(
  tools: Map<string, Tool>,
  schema: GraphQLSchema,
  deps: AppDeps,
  extras: McpExtras,
): JSONRPCServer<CallParams> {
  const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true });
  const validators = new Map(
    [...tools].map(([name, tool]) => [name, ajv.compile(tool.definition.inputSchema)]),
  );
  const rpc = new JSONRPCServer<CallParams>({ errorListener: () => undefined });
  const resources = new Resources(schema, extras);
  const prompts = new Prompts(schema, extras);

  /** Runs a resource or prompt read: a failure of its operation is a JSON-RPC error in the tools' words. */
  async function guarded<T>(
    run: () => Promise<T>,
    ctx: RequestContext,
    modern: boolean,
    notFoundData?: Record<string, unknown>,
  ): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (err instanceof JSONRPCErrorException) throw err;
      if (!(err instanceof AppError) || err.code === 'INTERNAL') {
        deps.log.error(
          { err: err instanceof AppError ? (err.cause ?? err) : err, requestId: ctx.requestId },
          'mcp method failed',
        );
        throw new JSONRPCErrorException('Internal error', JSONRPC.INTERNAL, { requestId: ctx.requestId });
      }
      const notFound = notFoundData
        ? modern
          ? JSONRPC.INVALID_PARAMS
          : MCP_ERROR.RESOURCE_NOT_FOUND_LEGACY
        : JSONRPC.INVALID_PARAMS;
      const failure = methodFailure(err, notFound);
      if (failure.kind === 'result') throw new JSONRPCErrorException('Internal error', JSONRPC.INTERNAL);
      throw new JSONRPCErrorException(failure.message, failure.code, {
        ...(failure.code === notFound && notFoundData ? notFoundData : {}),
        httpStatus: failure.status,
        retryAfterSeconds: failure.retryAfterSeconds,
      });
    }
  }
  rpc.addMethod('initialize', (params: unknown) => {
    const requested = (params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
    const protocolVersion = LEGACY_VERSIONS.includes(requested as string)
      ? (requested as string)
      : LATEST_LEGACY_VERSION;
    return {
      protocolVersion,
      capabilities: CAPABILITIES,
      serverInfo: SERVER_INFO,
      instructions: INSTRUCTIONS,
    };
  });
  rpc.addMethod('server/discover', (_params: unknown, { modern }: CallParams) => ({
    supportedVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
    capabilities: modern ? MODERN_CAPABILITIES : CAPABILITIES,
    instructions: INSTRUCTIONS,
    ...(modern ? {} : { serverInfo: SERVER_INFO }),
  }));
  rpc.addMethod('notifications/initialized', () => undefined);
  rpc.addMethod('ping', () => ({}));
  rpc.addMethod('tools/list', () => ({ tools: [...tools.values()].map((t) => t.definition) }));
  rpc.addMethod('resources/list', async (params: unknown, { ctx, modern }: CallParams) => {
    const cursor = (params as { cursor?: unknown } | undefined)?.cursor;
    if (cursor !== undefined && cursor !== null && typeof cursor !== 'string')
      throw new JSONRPCErrorException('cursor must be a string', JSONRPC.INVALID_PARAMS);
    return guarded(() => resources.list(cursor ?? undefined, ctx), ctx, modern);
  });
  rpc.addMethod('resources/templates/list', () => ({ resourceTemplates: resources.templates() }));
  rpc.addMethod('resources/read', async (params: unknown, { ctx, modern }: CallParams) => {
    const uri = (params as { uri?: unknown } | undefined)?.uri;
    const notFound = modern ? JSONRPC.INVALID_PARAMS : MCP_ERROR.RESOURCE_NOT_FOUND_LEGACY;
    if (typeof uri !== 'string')
      throw new JSONRPCErrorException('uri must be a string', JSONRPC.INVALID_PARAMS);
    const ref = resources.resolve(uri);
    if (!ref) {
      throw new JSONRPCErrorException(
        `Resource not found: ${uri.slice(0, 200)}. Resources are pds://documents/{document_id}, pds://documents/{document_id}/pages/{page} and pds://projects/{project_id}/documents (resources/templates/list)`,
        notFound,
        { uri: uri.slice(0, 200) },
      );
    }
    return guarded(() => resources.read(uri, ref, ctx), ctx, modern, { uri });
  });
  rpc.addMethod('prompts/list', () => ({ prompts: prompts.list() }));
  rpc.addMethod('prompts/get', async (params: unknown, { ctx, modern }: CallParams) => {
    const p = (params ?? {}) as { name?: unknown; arguments?: unknown };
    return guarded(() => prompts.get(p.name, p.arguments, ctx), ctx, modern);
  });
  rpc.addMethod('tools/call', async (params: unknown, { ctx }: CallParams): Promise<ToolResult> => {
    const p = (params ?? {}) as { name?: unknown; arguments?: unknown };
    const tool = typeof p.name === 'string' ? tools.get(p.name) : undefined;
    if (!tool) {
      throw new JSONRPCErrorException(
        `Unknown tool: ${JSON.stringify(p.name)}. Available: ${[...tools.keys()].join(', ')}`,
        JSONRPC.INVALID_PARAMS,
      );
    }
    const args = p.arguments === undefined || p.arguments === null ? {} : p.arguments;
    if (typeof args !== 'object' || Array.isArray(args))
      return toolError('Invalid arguments: arguments must be an object');
    // Freshly parsed from this request's body: ajv may fill in defaults on it directly.
    const variables = args as Record<string, unknown>;
    const validate = validators.get(tool.definition.name)!;
    if (!validate(variables)) return toolError(`Invalid arguments: ${ajvMessage(validate)}`);
    const done = toolCallTimer(tool.definition.name);
    try {
      const data = await runOperation<{ result: unknown }>(tool.operation, variables, ctx);
      done('ok');
      return {
        content: [{ type: 'text', text: JSON.stringify(data.result) }],
        structuredContent: data.result,
      };
    } catch (err) {
      done(err instanceof AppError ? err.code.toLowerCase() : 'internal');
      if (!(err instanceof AppError) || err.code === 'INTERNAL') {
        deps.log.error(
          { err: err instanceof AppError ? (err.cause ?? err) : err, requestId: ctx.requestId },
          'tool failed',
        );
        throw new JSONRPCErrorException('Internal error', JSONRPC.INTERNAL, { requestId: ctx.requestId });
      }
      const failure = mcpFailure(err, true);
      if (failure.kind === 'result') return failure.result;
      throw new JSONRPCErrorException(failure.message, failure.code, {
        httpStatus: failure.status,
        retryAfterSeconds: failure.retryAfterSeconds,
      });
    }
  });
  return rpc;
}

function allowedOrigin(origin: string, publicBaseUrl: string): boolean {
  try {
    const url = new URL(origin);
    return (
      url.origin === new URL(publicBaseUrl).origin ||
      url.hostname === 'localhost' ||
      url.hostname === '127.0.0.1'
    );
  } catch {
    return false;
  }
}

type MediaRange = { type: string; q: number };

function mediaRanges(accept: string): MediaRange[] {
  return accept.split(',').map((part) => {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    return { type: type.trim(), q: q === undefined ? 1 : Number(q) };
  });
}

function accepts(ranges: MediaRange[], type: string): boolean {
  const [major] = type.split('/');
  return ranges.some((r) => r.q > 0 && (r.type === type || r.type === `${major}/*` || r.type === '*/*'));
}

/**
 * How to frame the answer, from Accept (MCP Streamable HTTP: a client lists application/json and
 * text/event-stream, and the server picks one). This server answers with one JSON body; a client
 * that accepts only event streams gets that message as one SSE event; one that accepts neither
 * gets 406. No Accept header means anything is acceptable (RFC 9110).
 */
export function responseFraming(accept: string | undefined): 'json' | 'sse' | null {
  if (!accept?.trim()) return 'json';
  const ranges = mediaRanges(accept);
  if (accepts(ranges, 'application/json')) return 'json';
  if (accepts(ranges, 'text/event-stream')) return 'sse';
  return null;
}

/** Content-Type is one of the spec's required headers; parameters such as charset are allowed. */
function isJsonContentType(contentType: string | undefined): boolean {
  return contentType?.split(';')[0].trim().toLowerCase() === 'application/json';
}

/** JSON-RPC 2.0: an id is a string, a number or null, or absent (a notification). */
function isJsonRpcId(id: unknown): boolean {
  return id === undefined || id === null || typeof id === 'string' || typeof id === 'number';
}

type RawJson = { readonly rawJSON: string };
const jsonWithSource = JSON as unknown as {
  rawJSON(text: string): RawJson;
  parse(
    text: string,
    reviver: (this: object, key: string, value: unknown, context: { source?: string }) => unknown,
  ): unknown;
};

/**
 * The top-level `id` of a message as JSON text when it is a number a double cannot hold exactly
 * (beyond 2^53), so the answer carries the digits the client sent; undefined otherwise. Only such
 * messages are parsed a second time, with the source text of each value (JSON.parse source access).
 */
function exactNumberId(body: string): RawJson | undefined {
  const probe = /"id"\s*:\s*(-?\d{16,})/.exec(body);
  if (!probe) return undefined;
  let source: string | undefined;
  const sources = new Map<object, string>();
  const root = jsonWithSource.parse(body, function (key, value, context) {
    if (key === 'id' && typeof value === 'number' && context.source !== undefined)
      sources.set(this, context.source);
    return value;
  });
  if (root && typeof root === 'object') source = sources.get(root);
  if (source === undefined || Number.isSafeInteger(Number(source))) return undefined;
  return jsonWithSource.rawJSON(source);
}

function rpcError(
  reply: FastifyReply,
  status: number,
  code: number,
  message: string,
  id: unknown = null,
  data?: Record<string, unknown>,
) {
  // The request's deadline may have answered it already (503).
  if (reply.sent) return reply;
  return reply
    .code(status)
    .type('application/json')
    .send({ jsonrpc: '2.0', id, error: { code, message, ...(data ? { data } : {}) } });
}

/**
 * The MCP tool server: POST /mcp, one JSON-RPC 2.0 message per request, answered with
 * application/json. Every request goes through the one context (bearer token → team → plan →
 * rate limit) before any method runs; each tool is a GraphQL operation on the one schema.
 */
export async function registerMcp(
  app: FastifyInstance,
  schema: GraphQLSchema,
  deps: AppDeps,
  extras: McpExtras = {},
): Promise<void> {
  const tools = loadTools(schema);
  const rpc = buildRpc(tools, schema, deps, extras);
  // RFC 9728: the resource's metadata is served by the authorization server (src/oauth).
  const resourceMetadataUrl = `${deps.config.publicBaseUrl}/.well-known/oauth-protected-resource`;

  await app.register((scope, _opts, done) => {
    // The body is parsed here, not by Fastify, so malformed JSON gets a JSON-RPC parse error.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MAX_BODY_BYTES }, (_req, body, done) =>
      done(null, body),
    );
    scope.setErrorHandler((err: { statusCode?: number; message: string }, _req, reply) => {
      if (err.statusCode === 413)
        return rpcError(reply, 413, JSONRPC.INVALID_REQUEST, 'Request body larger than 1 MB');
      if (err.statusCode && err.statusCode < 500)
        return rpcError(reply, err.statusCode, JSONRPC.INVALID_REQUEST, err.message);
      deps.log.error({ err }, 'mcp transport error');
      return rpcError(reply, 500, JSONRPC.INTERNAL, 'Internal error');
    });
    for (const method of ['GET', 'DELETE', 'PUT', 'PATCH'] as const) {
      scope.route({
        method,
        url: '/mcp',
        handler: (_req, reply) =>
          reply.code(405).header('allow', 'POST').send({ message: 'Use POST for MCP JSON-RPC messages' }),
      });
    }
    scope.post('/mcp', async (request: FastifyRequest, reply: FastifyReply) => {
      const origin = request.headers.origin;
      if (origin && !allowedOrigin(origin, deps.config.publicBaseUrl)) {
        return rpcError(reply, 403, JSONRPC.INVALID_REQUEST, `Origin ${origin} is not allowed`);
      }
      if (!isJsonContentType(request.headers['content-type'])) {
        return reply
          .code(415)
          .type('application/json')
          .send({
            message: `Content-Type must be application/json (got ${request.headers['content-type'] ?? 'none'}): send one JSON-RPC 2.0 message as JSON`,
            header: 'Content-Type',
          });
      }
      const framing = responseFraming(request.headers.accept);
      if (!framing) {
        return reply
          .code(406)
          .type('application/json')
          .send({
            message: `Accept must include application/json or text/event-stream (got ${request.headers.accept})`,
            header: 'Accept',
          });
      }
      const version = request.headers['mcp-protocol-version'];
      let message: unknown;
      try {
        message = JSON.parse(typeof request.body === 'string' ? request.body : '');
      } catch {
        return rpcError(reply, 400, JSONRPC.PARSE, 'Parse error: the body is not valid JSON');
      }
      if (Array.isArray(message)) {
        return rpcError(
          reply,
          400,
          JSONRPC.INVALID_REQUEST,
          'Batches are not supported: send one JSON-RPC message per request',
        );
      }
      const m = message as Partial<JSONRPCRequest> | null;
      if (m && typeof m === 'object' && !isJsonRpcId(m.id)) {
        return rpcError(
          reply,
          400,
          JSONRPC.INVALID_REQUEST,
          'Invalid Request: id must be a string, a number or null',
        );
      }
      if (!m || typeof m !== 'object' || m.jsonrpc !== '2.0' || typeof m.method !== 'string') {
        return rpcError(
          reply,
          400,
          JSONRPC.INVALID_REQUEST,
          'Invalid Request: expected a JSON-RPC 2.0 object with a method',
          m?.id ?? null,
        );
      }
      // An integer id beyond 2^53 is echoed as its own digits, not as the nearest double.
      const exactId = typeof m.id === 'number' ? exactNumberId(request.body as string) : undefined;
      if (exactId !== undefined) m.id = 0;
      const requestedVersion = requestedModernVersion(m.params);
      const modern = requestedVersion !== undefined || version === MODERN_PROTOCOL_VERSION;
      if (
        !modern &&
        typeof version === 'string' &&
        !(SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(version)
      ) {
        return rpcError(
          reply,
          400,
          MCP_ERROR.UNSUPPORTED_PROTOCOL_VERSION,
          `Unsupported MCP-Protocol-Version ${version}; supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`,
          exactId ?? m.id ?? null,
          { supported: [...SUPPORTED_PROTOCOL_VERSIONS], requested: version },
        );
      }
      if (modern) {
        const refusal = checkModernRequest(
          { method: m.method, params: m.params },
          requestedVersion,
          request.headers,
          SUPPORTED_PROTOCOL_VERSIONS,
        );
        if (refusal)
          return rpcError(
            reply,
            refusal.status,
            refusal.code,
            refusal.message,
            exactId ?? m.id ?? null,
            refusal.data,
          );
        if (MODERN_REMOVED_METHODS.has(m.method)) {
          if (m.id === undefined) return reply.code(202).send();
          return rpcError(
            reply,
            404,
            JSONRPC.METHOD_NOT_FOUND,
            `Method not found: ${m.method} is not part of the ${MODERN_PROTOCOL_VERSION} revision (requests carry their version in _meta; use server/discover)`,
            exactId ?? m.id,
          );
        }
      }
      let ctx: RequestContext;
      try {
        ctx = await createContext(
          {
            transport: 'mcp',
            authorization: request.headers.authorization,
            ip: request.ip,
            requestId: request.id,
            ratePolicy: 'mcp',
            signal: request.workSignal,
          },
          deps,
        );
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        const failure = mcpFailure(err, m.method === 'tools/call' && m.id !== undefined);
        if (failure.kind === 'result')
          return reply.send({ jsonrpc: '2.0', id: m.id, result: failure.result });
        if (failure.challenge)
          void reply.header('www-authenticate', `Bearer resource_metadata="${resourceMetadataUrl}"`);
        if (failure.retryAfterSeconds !== undefined)
          void reply.header('retry-after', String(failure.retryAfterSeconds));
        return rpcError(reply, failure.status, failure.code, failure.message, exactId ?? m.id ?? null);
      }
      const response = await rpc.receive(m as JSONRPCRequest, { ctx, modern });
      if (response === null) return reply.code(202).send();
      if (exactId !== undefined) response.id = exactId as never;
      if (reply.sent) return reply;
      if (modern && response.result !== undefined) response.result = modernResult(m.method, response.result);
      // 2026-07-28: a method the server does not implement is a 404 (a legacy client keeps its 200).
      if (modern && response.error?.code === JSONRPC.METHOD_NOT_FOUND) void reply.code(404);
      // A tool call's failure that is not a tool result (mcpFailure): its status and Retry-After.
      const data = response.error?.data as { httpStatus?: unknown; retryAfterSeconds?: unknown } | undefined;
      if (typeof data?.httpStatus === 'number') {
        void reply.code(data.httpStatus);
        delete data.httpStatus;
      }
      if (typeof data?.retryAfterSeconds === 'number')
        void reply.header('retry-after', String(data.retryAfterSeconds));
      if (framing === 'sse') {
        return reply.type('text/event-stream').send(`event: message\ndata: ${JSON.stringify(response)}\n\n`);
      }
      return reply.type('application/json').send(response);
    });
    done();
  });
}
