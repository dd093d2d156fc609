import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import type { AppConfig } from '../config.js';
import type { AppDeps, FeatureAuth } from '../context/context.js';
import { registerLoginRoutes } from './login.routes.js';
import { USER_PATHS } from './paths.js';
import { readSessionCookie } from './session-cookie.js';
import { authenticateSession } from './session.service.js';

/**
 * Signed-in users: the cookie parser (sessions reach GraphQL and the consent pages through it) and
 * the sign-in pages. Registered before every route that reads a session.
 */
export async function registerUsers(server: FastifyInstance, deps: AppDeps): Promise<void> {
  await server.register(fastifyCookie);
  await server.register(async (scope) => {
    await scope.register(fastifyFormbody);
    registerLoginRoutes(scope, deps);
  });
}

/** How the one context reads a signed-in user's session (src/app.ts hands it over in AppDeps). */
export function sessionAuth(
  config: Pick<AppConfig, 'publicBaseUrl'>,
): Pick<FeatureAuth, 'sessionCookie' | 'session' | 'signInPath'> {
  return {
    signInPath: USER_PATHS.login,
    sessionCookie: (request) => readSessionCookie(request, config),
    session: (em, value, teamId, now) => authenticateSession(em, value, teamId, now),
  };
}
