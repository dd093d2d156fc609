import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../context/context.js';
import { roleMay } from '../credentials/credentials.access.js';
import { AppError, badInput } from '../errors/catalogue.js';
import { formField } from '../users/form-guard.js';
import { sendPage, type SafeHtml } from '../users/html.js';
import * as webhooks from '../webhooks/webhooks.service.js';
import {
  guardedAction,
  loadSettings,
  refusalMessage,
  type FormRefusal,
  type SettingsRequest,
} from './settings.context.js';
import { formList } from './settings.forms.js';
import { SETTINGS_PATHS, teamUrl, type Messages } from './settings.layout.js';
import {
  EVERY_TYPE,
  deleteEndpointPage,
  deliveriesPage,
  endpointPath,
  webhooksPage,
  type EndpointDraft,
  type WebhookList,
} from './webhooks.pages.js';

type Query = { team?: unknown; notice?: unknown };
type WithId = { Params: { id: string }; Querystring: Query };

const NOTICES: Record<string, string> = {
  deleted: 'The endpoint was deleted: nothing more is sent to it.',
  disabled: 'The endpoint was disabled: nothing more is sent to it until it is enabled again.',
  enabled: 'The endpoint was enabled: new events are sent to it again.',
  redelivered: 'The delivery is queued again and is sent at once, with the same webhook-id.',
};

const MANAGERS_ONLY = 'Only an owner or admin of this team may see and manage its webhooks';

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

function noticeOf(query: Query): Messages {
  const notice = text(query.notice);
  return notice && NOTICES[notice] ? { notice: NOTICES[notice] } : {};
}

function pathId(id: string): number {
  return /^\d{1,10}$/.test(id) ? Number(id) : NaN;
}

/** A refusal from the webhook services as a sentence for the page; null for anything else. */
function webhookRefusal(err: unknown): FormRefusal | null {
  if (!(err instanceof AppError)) return null;
  switch (err.code) {
    case 'FORBIDDEN':
      return { status: 403, message: `${MANAGERS_ONLY}. Nothing was changed.` };
    case 'NOT_FOUND':
      return {
        status: 404,
        message: 'No webhook endpoint or delivery with that id in this team. Nothing was changed.',
      };
    case 'PLAN_UPGRADE_REQUIRED':
      return {
        status: 403,
        message: `Webhooks send the change feed, which needs a Pro or Elite plan in good standing (${err.message}).`,
      };
    case 'CONFLICT':
      return {
        status: 409,
        message: `${err.message[0].toUpperCase()}${err.message.slice(1)}. Nothing was changed.`,
      };
    case 'BAD_USER_INPUT':
    case 'CREDENTIAL_INVALID':
    case 'CREDENTIAL_MISSING':
    case 'INTERNAL':
    case 'RATE_LIMITED':
    case 'SCOPE_MISSING':
    case 'SERVICE_UNAVAILABLE':
      return refusalMessage(err);
  }
}

/** The form's event types for the services: every type is their empty list; none is a refusal. */
function chosenTypes(types: readonly string[]): string[] {
  if (types.includes(EVERY_TYPE)) return [];
  if (!types.length) throw badInput('eventTypes', 'choose at least one event type, or every event type');
  return [...types];
}

/**
 * The team settings' webhooks pages: list, register, disable, enable and delete endpoints, and
 * each endpoint's delivery log with redelivery. They call the services the GraphQL webhook fields
 * call, which hold the rules (owners and admins of Pro and Elite teams, URLs, event types).
 */
export function registerWebhookSettings(scope: FastifyInstance, deps: AppDeps): void {
  const send = (reply: FastifyReply, status: number, markup: SafeHtml) =>
    sendPage(reply, status, markup, { scripts: true });
  const load = (request: FastifyRequest, reply: FastifyReply, team: string | undefined, returnTo: string) =>
    loadSettings(request, reply, deps, team, returnTo);
  const listUrl = (req: SettingsRequest) => teamUrl(SETTINGS_PATHS.webhooks, req.view.team.id);

  /** The endpoints, or why this person may not see them (checked by the service for the page too). */
  async function list(req: SettingsRequest): Promise<{ list: WebhookList; status: number }> {
    if (!roleMay(req.view.role, 'manage-keys'))
      return { list: { refused: `${MANAGERS_ONLY}.` }, status: 403 };
    try {
      return {
        list: {
          endpoints: await webhooks.listEndpoints(req.ctx.em.fork(), req.ctx.viewer, req.view.team.id),
        },
        status: 200,
      };
    } catch (err) {
      const refusal = webhookRefusal(err);
      if (!refusal) throw err;
      return { list: { refused: refusal.message }, status: refusal.status };
    }
  }

  /** Answers with the list page and why nothing changed. */
  async function refusedOnList(
    reply: FastifyReply,
    req: SettingsRequest,
    r: FormRefusal,
    draft?: EndpointDraft,
  ) {
    const { list: current } = await list(req);
    return send(reply, r.status, webhooksPage(req.view, current, { error: r.message, draft }));
  }

  /** Runs a guarded form action; a refusal (guard or service) answers with `refused`, nothing changed. */
  const guarded = (
    request: FastifyRequest,
    req: SettingsRequest,
    action: () => Promise<FastifyReply>,
    refused: (r: FormRefusal) => Promise<FastifyReply>,
  ) => guardedAction(request, req, deps, action, refused, webhookRefusal);

  scope.get<{ Querystring: Query }>(SETTINGS_PATHS.webhooks, async (request, reply) => {
    const req = await load(request, reply, text(request.query.team), request.url);
    if ('answered' in req) return req.answered;
    const { list: current, status } = await list(req);
    return send(reply, status, webhooksPage(req.view, current, noticeOf(request.query)));
  });

  scope.post(SETTINGS_PATHS.webhooks, async (request, reply) => {
    const req = await load(request, reply, formField(request.body, 'team'), SETTINGS_PATHS.webhooks);
    if ('answered' in req) return req.answered;
    const draft: EndpointDraft = {
      url: (formField(request.body, 'url') ?? '').slice(0, 2000),
      types: formList(request.body, 'types').slice(0, 50),
    };
    return guarded(
      request,
      req,
      async () => {
        const created = await webhooks.createEndpoint(
          req.ctx.em,
          req.ctx.viewer,
          { teamId: req.view.team.id, url: draft.url, eventTypes: chosenTypes(draft.types) },
          deps.config.webhooks.allowLoopback,
        );
        const { list: current } = await list(req);
        return send(
          reply,
          201,
          webhooksPage(req.view, current, {
            created: { url: created.endpoint.url, secret: created.secret },
          }),
        );
      },
      (r) => refusedOnList(reply, req, r, draft),
    );
  });

  /** The endpoint a page names, within the viewer's team; else the list with why. */
  async function endpointOr404(req: SettingsRequest, reply: FastifyReply, id: string) {
    const { list: current, status } = await list(req);
    if ('refused' in current) {
      send(reply, status, webhooksPage(req.view, current));
      return null;
    }
    const endpoint = current.endpoints.find((e) => String(e.id) === id);
    if (endpoint) return endpoint;
    send(
      reply,
      404,
      webhooksPage(req.view, current, {
        error: `No webhook endpoint with id ${id.slice(0, 12)} in this team.`,
      }),
    );
    return null;
  }

  scope.get<WithId>(`${SETTINGS_PATHS.webhooks}/:id`, async (request, reply) => {
    const req = await load(request, reply, text(request.query.team), request.url);
    if ('answered' in req) return req.answered;
    const endpoint = await endpointOr404(req, reply, request.params.id);
    if (!endpoint) return reply;
    const deliveries = await webhooks.listDeliveries(req.ctx.em.fork(), req.ctx.viewer, {
      endpointId: endpoint.id,
      first: 100,
    });
    return send(reply, 200, deliveriesPage(req.view, endpoint, deliveries, noticeOf(request.query)));
  });

  scope.get<WithId>(`${SETTINGS_PATHS.webhooks}/:id/delete`, async (request, reply) => {
    const req = await load(request, reply, text(request.query.team), request.url);
    if ('answered' in req) return req.answered;
    const endpoint = await endpointOr404(req, reply, request.params.id);
    return endpoint ? send(reply, 200, deleteEndpointPage(req.view, endpoint)) : reply;
  });

  const actions = {
    delete: async (em: SettingsRequest['ctx']['em'], req: SettingsRequest, id: number) => {
      await webhooks.deleteEndpoint(em, req.ctx.viewer, id);
      return `${listUrl(req)}&notice=deleted`;
    },
    disable: async (em: SettingsRequest['ctx']['em'], req: SettingsRequest, id: number) => {
      await webhooks.disableEndpoint(em, req.ctx.viewer, id);
      return `${listUrl(req)}&notice=disabled`;
    },
    enable: async (em: SettingsRequest['ctx']['em'], req: SettingsRequest, id: number) => {
      await webhooks.enableEndpoint(em, req.ctx.viewer, id);
      return `${listUrl(req)}&notice=enabled`;
    },
  } as const;
  for (const [action, run] of Object.entries(actions)) {
    scope.post<WithId>(`${SETTINGS_PATHS.webhooks}/:id/${action}`, async (request, reply) => {
      const req = await load(request, reply, formField(request.body, 'team'), SETTINGS_PATHS.webhooks);
      if ('answered' in req) return req.answered;
      return guarded(
        request,
        req,
        async () => reply.redirect(await run(req.ctx.em, req, pathId(request.params.id)), 303),
        (r) => refusedOnList(reply, req, r),
      );
    });
  }

  scope.post<WithId>(`${SETTINGS_PATHS.webhooks}/:id/redeliver`, async (request, reply) => {
    const req = await load(request, reply, formField(request.body, 'team'), SETTINGS_PATHS.webhooks);
    if ('answered' in req) return req.answered;
    const endpointId = pathId(request.params.id);
    const logUrl = teamUrl(endpointPath(endpointId), req.view.team.id);
    return guarded(
      request,
      req,
      async () => {
        // The service finds the delivery's endpoint and refuses one of another team as not found.
        const deliveryId = formField(request.body, 'delivery') ?? '';
        await webhooks.redeliver(req.ctx.em, req.ctx.viewer, deliveryId);
        return reply.redirect(`${logUrl}&notice=redelivered`, 303);
      },
      (r) => refusedOnList(reply, req, r),
    );
  });
}
