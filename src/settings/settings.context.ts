import type { FastifyReply, FastifyRequest } from 'fastify';
import { createContext, type AppDeps, type RequestContext } from '../context/context.js';
import { AppError } from '../errors/catalogue.js';
import { formField, isCrossSitePost } from '../users/form-guard.js';
import { html, sendPage } from '../users/html.js';
import { messagePage } from '../users/login.pages.js';
import { USER_PATHS } from '../users/paths.js';
import { readSessionCookie } from '../users/session-cookie.js';
import { findSession, formToken } from '../users/session.service.js';
import { membershipsOf } from '../users/user.service.js';
import { checkSettingsForm, claimSettingsForm, newSettingsForm } from './settings.forms.js';
import { teamPickerPage, type SettingsView } from './settings.layout.js';

/** A settings request that passed the one context: who, for which team, and the page's view. */
export interface SettingsRequest {
  ctx: RequestContext;
  view: SettingsView;
}

/** The answer already sent (a sign-in redirect, a team picker, a refusal) instead of a settings request. */
type Answered = { answered: FastifyReply };

function loginUrl(next: string): string {
  return `${USER_PATHS.login}?next=${encodeURIComponent(next)}`;
}

/**
 * Every settings page starts here: the session through the one context (credential, team, role,
 * rate limit), for the team the link or form names. No session: a GET goes to sign-in and comes
 * back; a POST is refused with nothing changed. Several teams and none named: the team picker.
 */
export async function loadSettings(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: AppDeps,
  team: string | undefined,
  returnTo: string,
): Promise<SettingsRequest | Answered> {
  const secret = readSessionCookie(request, deps.config);
  const post = request.method === 'POST';
  const signInAgain = (): Answered => ({
    answered: post
      ? sendPage(
          reply,
          401,
          messagePage(
            'Session expired',
            'Your session has expired or you signed out, so nothing was changed. Sign in again and repeat the change.',
            html`<p><a href="${loginUrl(returnTo)}">Sign in</a></p>`,
          ),
        )
      : reply.header('cache-control', 'no-store').redirect(loginUrl(returnTo), 303),
  });
  if (!secret) return signInAgain();
  let ctx: RequestContext;
  try {
    ctx = await createContext(
      {
        transport: 'graphql',
        authorization: undefined,
        ip: request.ip,
        requestId: String(request.id),
        session: secret,
        teamId: team,
      },
      deps,
    );
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    if (err.code === 'CREDENTIAL_INVALID' || err.code === 'CREDENTIAL_MISSING') return signInAgain();
    if (err.code === 'RATE_LIMITED') {
      const retry = err.details.retryAfterSeconds ?? 60;
      void reply.header('retry-after', String(retry));
      return {
        answered: sendPage(
          reply,
          429,
          messagePage(
            'Too many requests',
            `Please wait ${retry} seconds and try again. Nothing was changed.`,
          ),
        ),
      };
    }
    if (err.code !== 'FORBIDDEN') throw err;
    const notMember = `You are not a member of team ${team?.slice(0, 20)}.`;
    return { answered: await picker(reply, deps, secret, 403, notMember) };
  }
  const viewer = ctx.viewer!;
  if (!viewer.team || !viewer.user || !viewer.role) {
    return { answered: await picker(reply, deps, secret, 200) };
  }
  const teamCount = (await membershipsOf(ctx.em, viewer.user.id)).length;
  const teamId = viewer.team.id;
  return {
    ctx,
    view: {
      team: viewer.team,
      role: viewer.role,
      user: viewer.user,
      teamCount,
      form: () => newSettingsForm(secret, teamId),
      logoutToken: formToken(secret, 'logout'),
      baseUrl: deps.config.publicBaseUrl.replace(/\/+$/, ''),
      now: deps.clock(),
    },
  };
}

async function picker(
  reply: FastifyReply,
  deps: AppDeps,
  secret: string,
  status: number,
  error?: string,
): Promise<FastifyReply> {
  const em = deps.em.fork();
  const session = await findSession(em, secret, deps.clock());
  if (!session) return reply.redirect(loginUrl('/settings'), 303);
  const memberships = await membershipsOf(em, session.user.id);
  if (!memberships.length) {
    return sendPage(
      reply,
      403,
      messagePage('No team', 'Your account is not a member of any team. Ask a team owner to add you.'),
    );
  }
  return sendPage(
    reply,
    status,
    teamPickerPage(session.user.email, memberships, formToken(secret, 'logout'), error),
  );
}

/** Why a settings form was not accepted, before anything is changed. */
export type FormRefusal = { status: number; message: string };

/**
 * The guard every settings POST passes before its action: same-site (fetch metadata and Origin),
 * the one-time form id and token bound to this session and team, and that id not used before.
 */
export async function checkSettingsPost(
  request: FastifyRequest,
  req: SettingsRequest,
  deps: AppDeps,
): Promise<FormRefusal | null> {
  if (isCrossSitePost(request, deps.config)) {
    return { status: 403, message: 'This form was submitted from another site, so it was not accepted.' };
  }
  const secret = readSessionCookie(request, deps.config)!;
  const nonce = formField(request.body, 'nonce');
  if (!checkSettingsForm(secret, req.view.team.id, nonce, formField(request.body, 'token'))) {
    return {
      status: 403,
      message: 'The form has expired or belongs to another session: nothing was changed. Try again below.',
    };
  }
  if (!(await claimSettingsForm(req.ctx.em, nonce, deps.clock()))) {
    return {
      status: 409,
      message:
        'This form was already submitted, so nothing was changed this time. The page below shows the current state.',
    };
  }
  return null;
}

/**
 * Runs a settings form's action behind the POST guard. A refusal, the guard's or the service's (as
 * `toRefusal` words it), answers with `refused`, nothing changed; any other error goes on.
 */
export async function guardedAction(
  request: FastifyRequest,
  req: SettingsRequest,
  deps: AppDeps,
  action: () => Promise<FastifyReply>,
  refused: (r: FormRefusal) => Promise<FastifyReply>,
  toRefusal: (err: unknown) => FormRefusal | null = refusalMessage,
): Promise<FastifyReply> {
  const guard = await checkSettingsPost(request, req, deps);
  if (guard) return refused(guard);
  try {
    return await action();
  } catch (err) {
    const refusal = toRefusal(err);
    if (!refusal) throw err;
    return refused(refusal);
  }
}

const FIELD_LABELS: Record<string, string> = {
  name: 'Name',
  scopes: 'Scopes',
  expiresAt: 'Expires on',
  expiresInSeconds: 'The old secret stops working',
  url: 'URL',
  eventTypes: 'Event types',
  id: '',
};

/** A refusal from a service (bad input, a role that may not) as a sentence for the page; null for anything else. */
export function refusalMessage(err: unknown): FormRefusal | null {
  if (!(err instanceof AppError)) return null;
  if (err.code === 'FORBIDDEN') return { status: 403, message: `${err.message}. Nothing was changed.` };
  if (err.code === 'CONFLICT') return { status: 409, message: `${err.message}. Nothing was changed.` };
  if (err.code !== 'BAD_USER_INPUT') return null;
  const [field, problems] = Object.entries(err.details.fields ?? {})[0] ?? [];
  if (!field || !problems?.length) return { status: 422, message: `${err.message}. Nothing was changed.` };
  const label = FIELD_LABELS[field.split('.')[0]] ?? field;
  const problem = problems[0];
  const sentence = label
    ? `${label}: ${problem}`
    : `${problem[0].toUpperCase()}${problem.slice(1)} in this team`;
  return { status: 422, message: `${sentence}. Nothing was changed.` };
}
