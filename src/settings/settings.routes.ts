import fastifyFormbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../context/context.js';
import {
  requireSettings,
  requireSettingsAccess,
  settingsTeamScope,
  tokenScope,
} from '../credentials/credentials.access.js';
import * as credentials from '../credentials/credentials.service.js';
import { badInput } from '../errors/catalogue.js';
import { disconnectClient, listConnectedClients } from '../oauth/grant.service.js';
import { formField } from '../users/form-guard.js';
import { sendPage, type SafeHtml } from '../users/html.js';
import { memberEmails } from '../users/user.service.js';
import { apiSettingsPage, disconnectPage, revokeTokenPage, type ApiSettings } from './api.pages.js';
import { COPY_SCRIPT } from './copy.script.js';
import { apiKeysPage, revokeKeyPage, rollKeyPage } from './keys.pages.js';
import { overviewPage } from './overview.pages.js';
import { usagePage } from './usage.pages.js';
import { registerWebhookSettings } from './webhooks.routes.js';
import { teamUsage } from '../usage/usage.service.js';
import {
  guardedAction,
  loadSettings,
  refusalMessage,
  type FormRefusal,
  type SettingsRequest,
} from './settings.context.js';
import { formList } from './settings.forms.js';
import { SETTINGS_PATHS, teamUrl, type Messages } from './settings.layout.js';

type Query = { team?: unknown; notice?: unknown };
type WithId = { Params: { id: string }; Querystring: Query };

/** Sayings after a change, named in the redirect that follows it (no secret ever goes in a URL). */
const NOTICES: Record<string, string> = {
  'key-revoked': 'The key was revoked: requests made with it are refused from now on.',
  'token-revoked': 'The token was revoked: requests made with it are refused from now on.',
  'client-disconnected': 'The AI client was disconnected: its next request is refused.',
};

function queryText(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function noticeOf(query: Query): Messages {
  const notice = queryText(query.notice);
  return notice && NOTICES[notice] ? { notice: NOTICES[notice] } : {};
}

/** A date input (YYYY-MM-DD) as the end of that day, UTC; empty is no expiry. */
function parseExpiry(value: string | undefined): Date | null {
  const v = (value ?? '').trim();
  if (!v) return null;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  const start = m ? new Date(`${v}T00:00:00Z`) : null;
  if (!start || Number.isNaN(start.getTime()) || start.toISOString().slice(0, 10) !== v) {
    throw badInput('expiresAt', 'must be a date (YYYY-MM-DD)');
  }
  return new Date(start.getTime() + 24 * 60 * 60 * 1000);
}

/** A path id as a number for the services, which refuse anything but a positive integer id. */
function pathId(id: string): number {
  return /^\d{1,10}$/.test(id) ? Number(id) : NaN;
}

/** The team settings pages (/settings): server-rendered, calling the services GraphQL calls. */
export async function registerSettings(server: FastifyInstance, deps: AppDeps): Promise<void> {
  await server.register(async (scope) => {
    await scope.register(fastifyFormbody);
    registerSettingsRoutes(scope, deps);
    registerWebhookSettings(scope, deps);
  });
}

function registerSettingsRoutes(scope: FastifyInstance, deps: AppDeps): void {
  const send = (reply: FastifyReply, status: number, markup: SafeHtml) =>
    sendPage(reply, status, markup, { scripts: true });
  const load = (request: FastifyRequest, reply: FastifyReply, team: string | undefined, returnTo: string) =>
    loadSettings(request, reply, deps, team, returnTo);
  const postedTeam = (request: FastifyRequest) => formField(request.body, 'team');

  const keys = (req: SettingsRequest) =>
    credentials.listApiKeys(req.ctx.em.fork(), req.view.team.id, true, req.view.now);
  const apiSettings = async (req: SettingsRequest): Promise<ApiSettings> => {
    const em = req.ctx.em.fork();
    const tokens = await credentials.listAccessTokens(em, req.view.team.id, true, req.view.now);
    return {
      tokens: tokens.filter((t) => t.kind === 'personal'),
      clients: await listConnectedClients(em, req.view.team.id, req.view.now),
      emails: await memberEmails(em, req.view.team.id),
    };
  };
  const keysUrl = (req: SettingsRequest) => teamUrl(SETTINGS_PATHS.apiKeys, req.view.team.id);
  const apiUrl = (req: SettingsRequest) => teamUrl(SETTINGS_PATHS.api, req.view.team.id);

  /** Runs a guarded form action; a refusal (guard or service) re-renders the page with nothing changed. */
  const guarded = (
    request: FastifyRequest,
    req: SettingsRequest,
    action: () => Promise<FastifyReply>,
    refused: (r: FormRefusal) => Promise<FastifyReply>,
  ) => guardedAction(request, req, deps, action, refused);

  scope.get(SETTINGS_PATHS.copyScript, (_request, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .header('x-content-type-options', 'nosniff')
      .send(COPY_SCRIPT),
  );

  scope.get<{ Querystring: Query }>(SETTINGS_PATHS.overview, async (request, reply) => {
    const req = await load(request, reply, queryText(request.query.team), request.url);
    if ('answered' in req) return req.answered;
    requireSettings(req.ctx.viewer, req.view.team.id, 'view');
    return send(reply, 200, overviewPage(req.view, noticeOf(request.query)));
  });

  scope.get<{ Querystring: Query }>(SETTINGS_PATHS.usage, async (request, reply) => {
    const req = await load(request, reply, queryText(request.query.team), request.url);
    if ('answered' in req) return req.answered;
    requireSettings(req.ctx.viewer, req.view.team.id, 'view');
    const usage = await teamUsage(req.ctx.em, deps.limiter, req.view.team.id, null, req.view.now);
    return send(reply, 200, usagePage(req.view, usage, Math.ceil(deps.config.usageFlushIntervalMs / 1000)));
  });

  // API keys: list, create, roll, revoke.
  scope.get<{ Querystring: Query }>(SETTINGS_PATHS.apiKeys, async (request, reply) => {
    const req = await load(request, reply, queryText(request.query.team), request.url);
    if ('answered' in req) return req.answered;
    requireSettings(req.ctx.viewer, req.view.team.id, 'view');
    return send(reply, 200, apiKeysPage(req.view, await keys(req), noticeOf(request.query)));
  });

  scope.post(SETTINGS_PATHS.apiKeys, async (request, reply) => {
    const req = await load(request, reply, postedTeam(request), SETTINGS_PATHS.apiKeys);
    if ('answered' in req) return req.answered;
    const draft = {
      name: (formField(request.body, 'name') ?? '').slice(0, 300),
      scopes: formList(request.body, 'scopes'),
      expires: (formField(request.body, 'expires') ?? '').slice(0, 20),
    };
    return guarded(
      request,
      req,
      async () => {
        const viewer = requireSettingsAccess(req.ctx.viewer, req.view.team.id);
        const created = await credentials.createApiKey(
          req.ctx.em,
          {
            teamId: req.view.team.id,
            name: draft.name,
            scopes: draft.scopes,
            expiresAt: parseExpiry(draft.expires),
          },
          viewer.user?.id ?? null,
          req.view.now,
        );
        return send(
          reply,
          201,
          apiKeysPage(req.view, await keys(req), {
            created: { title: `New key: ${created.apiKey.name}`, secret: created.secret },
          }),
        );
      },
      async (r) => send(reply, r.status, apiKeysPage(req.view, await keys(req), { error: r.message, draft })),
    );
  });

  /** The key a confirmation page names, within the viewer's team; else the list with why. */
  async function keyOr404(req: SettingsRequest, reply: FastifyReply, id: string) {
    requireSettingsAccess(req.ctx.viewer, req.view.team.id);
    const list = await keys(req);
    const key = list.find((k) => String(k.id) === id && !k.revokedAt);
    if (key) return key;
    send(
      reply,
      404,
      apiKeysPage(req.view, list, { error: `No active API key with id ${id.slice(0, 12)} in this team.` }),
    );
    return null;
  }

  for (const action of ['roll', 'revoke'] as const) {
    const path = `${SETTINGS_PATHS.apiKeys}/:id/${action}`;
    const confirm = action === 'roll' ? rollKeyPage : revokeKeyPage;
    scope.get<WithId>(path, async (request, reply) => {
      const req = await load(request, reply, queryText(request.query.team), request.url);
      if ('answered' in req) return req.answered;
      try {
        const key = await keyOr404(req, reply, request.params.id);
        return key ? send(reply, 200, confirm(req.view, key)) : reply;
      } catch (err) {
        const refusal = refusalMessage(err);
        if (!refusal) throw err;
        return send(
          reply,
          refusal.status,
          apiKeysPage(req.view, await keys(req), { error: refusal.message }),
        );
      }
    });
    scope.post<WithId>(path, async (request, reply) => {
      const req = await load(request, reply, postedTeam(request), SETTINGS_PATHS.apiKeys);
      if ('answered' in req) return req.answered;
      const id = pathId(request.params.id);
      return guarded(
        request,
        req,
        async () => {
          const teamId = settingsTeamScope(req.ctx.viewer);
          if (action === 'revoke') {
            await credentials.revokeApiKey(req.ctx.em, id, teamId);
            return reply.redirect(`${keysUrl(req)}&notice=key-revoked`, 303);
          }
          const overlap = formField(request.body, 'overlap') ?? '';
          const rolled = await credentials.rollApiKey(
            req.ctx.em,
            id,
            /^\d{1,8}$/.test(overlap) ? Number(overlap) : NaN,
            { teamId, createdBy: req.view.user.id },
            req.view.now,
          );
          return send(
            reply,
            201,
            apiKeysPage(req.view, await keys(req), {
              created: { title: `Rolled key: ${rolled.apiKey.name}`, secret: rolled.secret },
            }),
          );
        },
        async (r) => send(reply, r.status, apiKeysPage(req.view, await keys(req), { error: r.message })),
      );
    });
  }

  // API settings: personal MCP access tokens and connected AI clients.
  scope.get<{ Querystring: Query }>(SETTINGS_PATHS.api, async (request, reply) => {
    const req = await load(request, reply, queryText(request.query.team), request.url);
    if ('answered' in req) return req.answered;
    requireSettings(req.ctx.viewer, req.view.team.id, 'view');
    return send(reply, 200, apiSettingsPage(req.view, await apiSettings(req), noticeOf(request.query)));
  });

  scope.post(`${SETTINGS_PATHS.api}/tokens`, async (request, reply) => {
    const req = await load(request, reply, postedTeam(request), SETTINGS_PATHS.api);
    if ('answered' in req) return req.answered;
    const draft = {
      name: (formField(request.body, 'name') ?? '').slice(0, 300),
      expires: (formField(request.body, 'expires') ?? '').slice(0, 20),
    };
    return guarded(
      request,
      req,
      async () => {
        const viewer = requireSettings(req.ctx.viewer, req.view.team.id, 'manage-own-tokens');
        const created = await credentials.createAccessToken(
          req.ctx.em,
          { teamId: req.view.team.id, name: draft.name, expiresAt: parseExpiry(draft.expires) },
          viewer,
          req.view.now,
        );
        return send(
          reply,
          201,
          apiSettingsPage(req.view, await apiSettings(req), {
            created: { title: `New MCP access token: ${created.accessToken.name}`, secret: created.secret },
          }),
        );
      },
      async (r) =>
        send(reply, r.status, apiSettingsPage(req.view, await apiSettings(req), { error: r.message, draft })),
    );
  });

  /** The token or client a confirmation page names, if the viewer may act on it; else the page with why. */
  async function manageable(req: SettingsRequest, reply: FastifyReply, kind: 'token' | 'client', id: string) {
    const scopeOf = tokenScope(req.ctx.viewer);
    const data = await apiSettings(req);
    const mine = (userId: number | null) => scopeOf.userId === null || userId === scopeOf.userId;
    const found =
      kind === 'token'
        ? data.tokens.find((t) => String(t.id) === id && !t.revokedAt && mine(t.userId))
        : data.clients.find((c) => c.id === id && mine(c.userId));
    if (found) return found;
    const what = kind === 'token' ? 'active MCP access token' : 'connected client';
    send(
      reply,
      404,
      apiSettingsPage(req.view, data, { error: `No ${what} you may manage has that id in this team.` }),
    );
    return null;
  }

  const apiActions = [
    { kind: 'token', path: `${SETTINGS_PATHS.api}/tokens/:id/revoke`, notice: 'token-revoked' },
    { kind: 'client', path: `${SETTINGS_PATHS.api}/clients/:id/disconnect`, notice: 'client-disconnected' },
  ] as const;
  for (const { kind, path, notice } of apiActions) {
    scope.get<WithId>(path, async (request, reply) => {
      const req = await load(request, reply, queryText(request.query.team), request.url);
      if ('answered' in req) return req.answered;
      const found = await manageable(req, reply, kind, request.params.id);
      if (!found) return reply;
      return send(
        reply,
        200,
        'kind' in found ? revokeTokenPage(req.view, found) : disconnectPage(req.view, found),
      );
    });
    scope.post<WithId>(path, async (request, reply) => {
      const req = await load(request, reply, postedTeam(request), SETTINGS_PATHS.api);
      if ('answered' in req) return req.answered;
      return guarded(
        request,
        req,
        async () => {
          const within = tokenScope(req.ctx.viewer);
          if (kind === 'token') {
            await credentials.revokeAccessToken(req.ctx.em, pathId(request.params.id), within);
          } else {
            await disconnectClient(req.ctx.em, request.params.id, within, req.view.now);
          }
          return reply.redirect(`${apiUrl(req)}&notice=${notice}`, 303);
        },
        async (r) =>
          send(reply, r.status, apiSettingsPage(req.view, await apiSettings(req), { error: r.message })),
      );
    });
  }
}
