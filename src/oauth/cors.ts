import fastifyCors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { OAUTH_PATHS } from './urls.js';

/**
 * Browser-based MCP clients call these cross-origin: discovery metadata, registration, token and
 * revocation endpoints, and `/mcp` itself. They carry bearer tokens, never cookies, so any origin
 * may call them; `WWW-Authenticate` is exposed so a browser client can find the resource
 * metadata after a 401. Everything else (GraphQL with its session cookie, the HTML pages) gets no
 * CORS headers.
 */
const CORS_PATH_PREFIXES = [
  '/.well-known/oauth-protected-resource',
  OAUTH_PATHS.authorizationServerMetadata,
  OAUTH_PATHS.token,
  OAUTH_PATHS.register,
  OAUTH_PATHS.revoke,
  '/mcp',
];

const OPEN: FastifyCorsOptions = {
  origin: '*',
  methods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
  exposedHeaders: [
    'WWW-Authenticate',
    'Mcp-Session-Id',
    'Mcp-Protocol-Version',
    'Retry-After',
    'X-RateLimit-Limit',
    'X-RateLimit-Remaining',
    'X-RateLimit-Reset',
    'X-Request-Id',
  ],
  maxAge: 86_400,
};

export function isCorsPath(url: string): boolean {
  const path = url.split('?', 1)[0];
  return CORS_PATH_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

export async function registerCors(server: FastifyInstance): Promise<void> {
  await server.register(fastifyCors, {
    delegator: (request, callback) => callback(null, isCorsPath(request.url) ? OPEN : { origin: false }),
  });
}
