import type { FastifyReply, FastifyRequest } from 'fastify';

/** The JSON-RPC id of an MCP request whose body is already read, so a refusal can still be matched by the client. */
function jsonRpcId(body: unknown): string | number | null {
  if (typeof body !== 'string' || body.length > 1024 * 1024) return null;
  try {
    const id = (JSON.parse(body) as { id?: unknown } | null)?.id;
    return typeof id === 'string' || typeof id === 'number' ? id : null;
  } catch {
    return null;
  }
}

/**
 * 503 with Retry-After in the wire format of the transport the request came in on: load shedding
 * and the request deadline answer here, before or instead of the facade, so it is one place.
 */
export function sendUnavailable(
  request: FastifyRequest,
  reply: FastifyReply,
  retryAfterSeconds: number,
  message: string,
): FastifyReply {
  void reply.code(503).header('retry-after', String(retryAfterSeconds)).header('cache-control', 'no-store');
  const path = request.url.split('?', 1)[0];
  if (path === '/mcp') {
    return reply
      .type('application/json')
      .send({ jsonrpc: '2.0', id: jsonRpcId(request.body), error: { code: -32000, message } });
  }
  if (path === '/graphql') {
    return reply
      .type('application/json')
      .send({ errors: [{ message, extensions: { code: 'SERVICE_UNAVAILABLE', retryAfterSeconds } }] });
  }
  return reply.type('application/json').send({ message });
}
