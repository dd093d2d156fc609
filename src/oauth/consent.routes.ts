import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../context/context.js';
import { chargeAddress, formField, isCrossSitePost } from '../users/form-guard.js';
import { sendPage } from '../users/html.js';
import { messagePage } from '../users/login.pages.js';
import { readSessionCookie } from '../users/session-cookie.js';
import { checkFormToken, findSession, formToken, type ActiveSession } from '../users/session.service.js';
import { membershipsOf } from '../users/user.service.js';
import { consentPage, refusalPage } from './consent.pages.js';
import { isConnectorEligible } from '../auth/entitlements.js';
import {
  approveAuthorization,
  denyAuthorization,
  findPending,
  type PendingAuthorization,
} from './grant.service.js';
import { OAUTH_PATHS } from './urls.js';

function expired(reply: FastifyReply): FastifyReply {
  return sendPage(
    reply,
    400,
    messagePage(
      'Link expired',
      'This connection request has expired or was already answered. Return to your AI client and connect again.',
    ),
  );
}

function toLogin(reply: FastifyReply, requestId: string): FastifyReply {
  const next = `${OAUTH_PATHS.consent}?request=${encodeURIComponent(requestId)}`;
  return reply.redirect(`${OAUTH_PATHS.login}?next=${encodeURIComponent(next)}`, 303);
}

const purpose = (pending: PendingAuthorization) => `consent:${pending.id}`;

async function render(
  deps: AppDeps,
  reply: FastifyReply,
  secret: string,
  session: ActiveSession,
  pending: PendingAuthorization,
  error?: string,
): Promise<FastifyReply> {
  const memberships = await membershipsOf(deps.em.fork(), session.user.id);
  const view = {
    pending,
    email: session.user.email,
    memberships,
    formToken: formToken(secret, purpose(pending)),
    logoutToken: formToken(secret, 'logout'),
    error,
  };
  // The consent form's answer redirects to the client.
  const formActionTo = pending.redirectUri;
  if (!memberships.some((m) => isConnectorEligible(m.team)))
    return sendPage(reply, 403, refusalPage(view), { formActionTo });
  return sendPage(reply, error ? 400 : 200, consentPage(view), { formActionTo });
}

/** The consent step of the connector flow: sign in if needed, pick a team, allow or deny. */
export function registerConsentRoutes(scope: FastifyInstance, deps: AppDeps): void {
  const { config } = deps;

  scope.get(
    OAUTH_PATHS.consent,
    async (request: FastifyRequest<{ Querystring: { request?: string } }>, reply) => {
      const em = deps.em.fork();
      const requestId = typeof request.query.request === 'string' ? request.query.request : undefined;
      const pending = await findPending(em, requestId);
      if (!pending) return expired(reply);
      const secret = readSessionCookie(request, config);
      const session = await findSession(em, secret);
      if (!session || !secret) return toLogin(reply, pending.id);
      return render(deps, reply, secret, session, pending);
    },
  );

  scope.post(OAUTH_PATHS.consent, async (request, reply) => {
    if (isCrossSitePost(request, config)) {
      return sendPage(
        reply,
        403,
        messagePage('Request refused', 'This form was submitted from another site.'),
      );
    }
    const rate = await chargeAddress(deps, 'oauth', request);
    if (!rate.allowed) {
      return sendPage(reply, 429, messagePage('Too many requests', 'Please wait a minute and try again.'));
    }
    const em = deps.em.fork();
    const pending = await findPending(em, formField(request.body, 'request'));
    if (!pending) return expired(reply);
    const secret = readSessionCookie(request, config);
    const session = await findSession(em, secret);
    if (!session || !secret) return toLogin(reply, pending.id);
    if (!checkFormToken(secret, purpose(pending), formField(request.body, 'token'))) {
      return sendPage(reply, 403, messagePage('Request refused', 'The consent form has expired: reload it.'));
    }
    const decision = formField(request.body, 'decision');
    if (decision === 'deny') {
      const back = await denyAuthorization(em, pending.id, 'The user denied the connection');
      return back ? reply.redirect(back, 303) : expired(reply);
    }
    if (decision !== 'allow') return render(deps, reply, secret, session, pending, 'Choose Allow or Deny.');
    const teamId = formField(request.body, 'team');
    const memberships = await membershipsOf(em, session.user.id);
    const chosen = memberships.find((m) => String(m.team.id) === teamId);
    if (!chosen)
      return render(deps, reply, secret, session, pending, 'Choose the team the connection acts for.');
    if (!isConnectorEligible(chosen.team)) {
      return render(
        deps,
        reply,
        secret,
        session,
        pending,
        `${chosen.team.name} has no active Agent or Enterprise subscription.`,
      );
    }
    const back = await approveAuthorization(em, pending.id, session.user.id, chosen.team.id);
    return back ? reply.redirect(back, 303) : expired(reply);
  });
}
