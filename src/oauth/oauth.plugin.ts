import fastifyExpress from '@fastify/express';
import fastifyFormbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../context/context.js';
import { chargeAddress } from '../users/form-guard.js';
import { createAuthorizationServer } from './authorization-server.js';
import { protectedResourceMetadata } from './metadata.js';
import { registerConsentRoutes } from './consent.routes.js';
import { registerCors } from './cors.js';
import { ClientMetadataDocuments } from './client-metadata-document.js';
import { PdsOAuthProvider } from './provider.js';
import { OAUTH_PATHS, oauthUrls } from './urls.js';

const PROTOCOL_PATHS = [
  OAUTH_PATHS.authorizationServerMetadata,
  OAUTH_PATHS.authorize,
  OAUTH_PATHS.token,
  OAUTH_PATHS.register,
  OAUTH_PATHS.revoke,
];
/** Token-bearing responses must never be cached, errors included (OAuth 2.1 §3.2.3). */
const NO_STORE_PATHS = new Set<string>([OAUTH_PATHS.token, OAUTH_PATHS.register, OAUTH_PATHS.revoke]);

function decodable(url: string): boolean {
  try {
    decodeURI(url);
    return true;
  } catch {
    return false;
  }
}

/**
 * Sessions, sign-in pages, CORS and the OAuth 2.1 authorization server for the MCP connector.
 *
 * The protocol endpoints are the MCP SDK's Express handlers, mounted with `@fastify/express` (the
 * documented way to run an Express app inside Fastify): in an encapsulated scope whose routes are
 * the protocol paths, the Express app runs in the `onRequest` hook, before Fastify reads the body,
 * so its own body parsers read it exactly as the SDK expects, and it answers through Fastify's
 * reply (headers set by earlier hooks, such as the request id and CORS, are kept). A hook before
 * it charges the address's `oauth` limit and marks token-bearing answers `no-store`.
 */
export async function registerOAuth(server: FastifyInstance, deps: AppDeps): Promise<void> {
  const urls = oauthUrls(deps.config);
  await registerCors(server);
  // RFC 9728: the metadata of the one protected resource (`/mcp`) names this authorization server.
  const resource = () => protectedResourceMetadata(urls);
  server.get('/.well-known/oauth-protected-resource', resource);
  server.get('/.well-known/oauth-protected-resource/mcp', resource);
  const documents = new ClientMetadataDocuments(deps.config.oauth.clientMetadataDocuments);
  const authorizationServer = createAuthorizationServer(
    new PdsOAuthProvider(deps.em, urls, documents),
    urls,
    deps.log,
  );

  await server.register(async (scope) => {
    scope.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
      // @fastify/express hands Express the URL through `decodeURI`, which throws on broken
      // percent-encoding (`%E0%A4%A`): that is the client's error, answered here as one.
      if (!decodable(request.url)) {
        return reply
          .code(400)
          .header('cache-control', 'no-store')
          .send({ error: 'invalid_request', error_description: 'The URL is not valid percent-encoding' });
      }
      const path = request.url.split('?', 1)[0];
      // Every request that can store something is charged to its address: GET /oauth/authorize
      // stores a pending request as much as a POST does, and registering a client is also charged
      // to its own hourly budget.
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
      if (NO_STORE_PATHS.has(path)) void reply.header('cache-control', 'no-store');
    });
    await scope.register(fastifyExpress);
    scope.use(authorizationServer);
    // The Express app answers every method on these paths (the SDK's handlers send 405 for the
    // ones they do not take), so Fastify never reads a body here; the routes put the paths in
    // this scope, whose hooks run the app.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, parsed) => parsed(null, undefined));
    for (const url of PROTOCOL_PATHS) {
      scope.route({
        method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
        url,
        handler: (request, reply) =>
          reply.code(404).send({ error: 'not_found', error_description: `No ${request.method} ${url}` }),
      });
    }
  });

  await server.register(async (scope) => {
    await scope.register(fastifyFormbody);
    registerConsentRoutes(scope, deps);
  });
}
