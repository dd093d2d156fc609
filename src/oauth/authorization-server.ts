import { authorizationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/authorize.js';
import { metadataHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/metadata.js';
import { clientRegistrationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/register.js';
import { revocationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/revoke.js';
import { tokenHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/token.js';
import express, { type ErrorRequestHandler, type Express } from 'express';
import type { FastifyBaseLogger } from 'fastify';
import { authorizationServerMetadata } from './metadata.js';
import { checkAuthorizationRequest } from './authorize-request.js';
import type { PdsOAuthProvider } from './provider.js';
import { OAUTH_PATHS, type OAuthUrls } from './urls.js';

/**
 * Body-parser failures (malformed JSON or form, wrong charset, oversized body) reach Express's
 * error path before any SDK handler runs; they are the client's fault, so they answer with an
 * OAuth `invalid_request` body and a 4xx status, never Express's HTML page.
 */
function oauthErrorHandler(log: FastifyBaseLogger): ErrorRequestHandler {
  return (err: unknown, _req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const status = (err as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      res
        .status(status === 413 || status === 415 ? status : 400)
        .set('cache-control', 'no-store')
        .json({ error: 'invalid_request', error_description: 'The request body could not be parsed' });
      return;
    }
    log.error({ err }, 'oauth endpoint failed');
    res.status(500).json({ error: 'server_error', error_description: 'Internal Server Error' });
  };
}

/**
 * The SDK's authorization-server handlers (authorize, token, register, revoke, RFC 8414 metadata)
 * composed on one Express app. Their built-in in-memory rate limits are off: limits are enforced
 * per address by the shared limiter in front of the bridge, so they hold across app nodes.
 */
export function createAuthorizationServer(
  provider: PdsOAuthProvider,
  urls: OAuthUrls,
  log: FastifyBaseLogger,
): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(OAUTH_PATHS.authorizationServerMetadata, metadataHandler(authorizationServerMetadata(urls)));
  app.use(OAUTH_PATHS.authorize, ...checkAuthorizationRequest(urls.mcpResource));
  app.use(OAUTH_PATHS.authorize, authorizationHandler({ provider, rateLimit: false }));
  app.use(OAUTH_PATHS.token, tokenHandler({ provider, rateLimit: false }));
  app.use(
    OAUTH_PATHS.register,
    clientRegistrationHandler({
      clientsStore: provider.clientsStore,
      rateLimit: false,
      clientSecretExpirySeconds: 0,
    }),
  );
  app.use(OAUTH_PATHS.revoke, revocationHandler({ provider, rateLimit: false }));
  app.use(oauthErrorHandler(log));
  return app;
}
