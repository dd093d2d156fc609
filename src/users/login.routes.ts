import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../context/context.js';
import { USER_PATHS } from './paths.js';
import { chargeAddress, formField, isCrossSitePost, signInLimits } from './form-guard.js';
import { sendPage } from './html.js';
import { loginPage, messagePage, signedInPage } from './login.pages.js';
import { clearSessionCookie, readSessionCookie, setSessionCookie } from './session-cookie.js';
import { checkFormToken, createSession, endSession, findSession, formToken } from './session.service.js';
import { verifyCredentials } from './user.service.js';

/** Only same-site paths may follow a sign-in (no open redirect); printable ASCII keeps Location valid. */
export function safeNext(next: unknown): string | null {
  if (typeof next !== 'string' || next.length > 2048) return null;
  return /^\/(?![/\\])[\x21-\x7e]*$/.test(next) ? next : null;
}

function refuseCrossSite(reply: FastifyReply): FastifyReply {
  return sendPage(
    reply,
    403,
    messagePage('Request refused', 'This form was submitted from another site, so it was not accepted.'),
  );
}

function tooMany(reply: FastifyReply, retryAfterSeconds: number): FastifyReply {
  void reply.header('retry-after', String(retryAfterSeconds));
  return sendPage(
    reply,
    429,
    messagePage('Too many attempts', `Please wait ${retryAfterSeconds} seconds and try again.`),
  );
}

/** Server-rendered sign-in and sign-out. Expects a form-body parser in the enclosing scope. */
export function registerLoginRoutes(scope: FastifyInstance, deps: AppDeps): void {
  const { config } = deps;

  scope.get(USER_PATHS.login, async (request: FastifyRequest<{ Querystring: { next?: string } }>, reply) => {
    const next = safeNext(request.query.next);
    const secret = readSessionCookie(request, config);
    const session = await findSession(deps.em.fork(), secret);
    if (session && secret) {
      return sendPage(
        reply,
        200,
        signedInPage({ email: session.user.email, next, logoutToken: formToken(secret, 'logout') }),
      );
    }
    return sendPage(reply, 200, loginPage({ next: next ?? USER_PATHS.login }));
  });

  scope.post(USER_PATHS.login, async (request, reply) => {
    if (isCrossSitePost(request, config)) return refuseCrossSite(reply);
    const rate = await chargeAddress(deps, 'oauth', request);
    if (!rate.allowed) return tooMany(reply, rate.retryAfterSeconds ?? rate.resetSeconds);
    const email = formField(request.body, 'email') ?? '';
    const password = formField(request.body, 'password') ?? '';
    const next = safeNext(formField(request.body, 'next')) ?? USER_PATHS.login;
    const limits = signInLimits(deps, request, email);
    const blocked = await limits.before();
    if (blocked) return tooMany(reply, blocked.retryAfterSeconds ?? blocked.resetSeconds);
    const em = deps.em.fork();
    const user = await verifyCredentials(em, email, password);
    if (!user) {
      const refused = await limits.failed();
      if (refused) return tooMany(reply, refused.retryAfterSeconds ?? refused.resetSeconds);
      return sendPage(
        reply,
        401,
        loginPage({ next, email: email.slice(0, 320), error: 'The email or password is incorrect.' }),
      );
    }
    // A fresh session on every sign-in: a session id planted before login is never promoted.
    const previous = readSessionCookie(request, config);
    if (previous) await endSession(em, previous);
    const session = await createSession(em, user.id);
    setSessionCookie(reply, config, session.secret, session.expiresAt);
    return reply.header('cache-control', 'no-store').redirect(next, 303);
  });

  scope.post(USER_PATHS.logout, async (request, reply) => {
    if (isCrossSitePost(request, config)) return refuseCrossSite(reply);
    const secret = readSessionCookie(request, config);
    if (secret) {
      if (!checkFormToken(secret, 'logout', formField(request.body, 'token'))) {
        return sendPage(reply, 403, messagePage('Request refused', 'The sign-out form has expired.'));
      }
      await endSession(deps.em.fork(), secret);
    }
    clearSessionCookie(reply, config);
    return reply.redirect(USER_PATHS.login, 303);
  });
}
