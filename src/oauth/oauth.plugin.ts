import fastifyFormbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../context/context.js';
import { chargeAddress } from '../users/form-guard.js';
import { createAuthorizationServer } from './authorization-server.js';
import { protectedResourceMetadata } from './metadata.js';
import { registerConsentRoutes } from './consent.routes.js';
import { registerCors } from './cors.js';
import { PdsOAuthProvider } from './provider.js';
import { OAUTH_PATHS, oauthUrls } from './urls.js';

const BRIDGED_PATHS = [
  OAUTH_PATHS.authorizationServerMetadata,
  OAUTH_PATHS.authorize,
  OAUTH_PATHS.token,
  OAUTH_PATHS.register,
  OAUTH_PATHS.revoke,
];
/** Token-bearing responses must never be cached, errors included (OAuth 2.1 §3.2.3). */
const NO_STORE_PATHS = new Set<string>([OAUTH_PATHS.token, OAUTH_PATHS.register, OAUTH_PATHS.revoke]);

/**
 * Sessions, sign-in pages, CORS and the OAuth 2.1 authorization server for the MCP connector.
 *
 * The protocol endpoints are the MCP SDK's Express handlers, mounted through a small bridge: an
 * encapsulated Fastify scope leaves the request body unread and hands the raw request to the
 * Express app, whose own body parsers then run exactly as the SDK expects. Headers already set
 * by Fastify hooks (request id, CORS) are copied onto the raw response first.
 */
export async function registerOAuth(server: FastifyInstance, deps: AppDeps): Promise<void> {
  const urls = oauthUrls(deps.config);
  await registerCors(server);
  // RFC 9728: the metadata of the one protected resource (`/mcp`) names this authorization server.
  const resource = () => protectedResourceMetadata(urls);
  server.get('/.well-known/oauth-protected-resource', resource);
  server.get('/.well-known/oauth-protected-resource/mcp', resource);
  const authorizationServer = createAuthorizationServer(new PdsOAuthProvider(deps.em, urls), urls, deps.log);

  const bridge = async (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?', 1)[0];
    // Every request that can store something is charged to its address: GET /oauth/authorize
    // stores a pending request as much as a POST does.
    if (request.method !== 'OPTIONS' && (request.method !== 'GET' || path === OAUTH_PATHS.authorize)) {
      let rate = await chargeAddress(deps, 'oauth', request);
      if (rate.allowed && request.method === 'POST' && path === OAUTH_PATHS.register)
        rate = await chargeAddress(deps, 'client-registration', request);
      if (!rate.allowed) {
        const retry = rate.retryAfterSeconds ?? rate.resetSeconds;
        return reply
          .code(429)
          .header('retry-after', String(retry))
          .header('cache-control', 'no-store')
          .send({ error: 'too_many_requests', error_description: `Retry in ${retry} seconds` });
      }
    }
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value !== undefined) reply.raw.setHeader(name, value);
    }
    if (NO_STORE_PATHS.has(path)) reply.raw.setHeader('cache-control', 'no-store');
    reply.hijack();
    authorizationServer(request.raw, reply.raw);
  };

  await server.register((scope, _opts, done) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, parsed) => parsed(null, undefined));
    for (const url of BRIDGED_PATHS) {
      scope.route({ method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'], url, handler: bridge });
    }
    done();
  });

  await server.register(async (scope) => {
    await scope.register(fastifyFormbody);
    registerConsentRoutes(scope, deps);
  });
}
