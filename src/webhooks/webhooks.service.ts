import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { requireFusionPlan, requireViewer } from '../auth/entitlements.js';
import { requireSettings } from '../credentials/credentials.access.js';
import type { Viewer } from '../auth/viewer.js';
import { CHANGE_TYPES } from '../changes/changes.service.js';
import { nativeQuery } from '../db/native.js';
import { AppError, badInput } from '../errors/catalogue.js';
import { parseId, validateRange } from '../errors/validate.js';
import { WEBHOOK_DELIVERIES_LIMIT } from '../limits.js';
import { NOT_SENT_DISABLED } from './delivery.js';
import { webhookUrlProblem } from './webhook-url.js';

/**
 * A team's webhook endpoints and their delivery log. Owners and admins of a Pro or Elite team
 * manage them (the feed's plans), signed in as for the team's keys. The signing secret is shown once at creation; the service keeps it
 * to sign every delivery (a receiver verifies with it), so unlike keys and tokens it is not a hash.
 */

/** Endpoints one team may register. */
export const MAX_ENDPOINTS_PER_TEAM = 10;

export interface WebhookEndpointView {
  id: number;
  teamId: number;
  url: string;
  eventTypes: string[];
  enabled: boolean;
  disabledReason: string | null;
  failingSince: string | null;
  createdAt: string;
}

export interface WebhookDeliveryView {
  id: string;
  endpointId: number;
  eventId: string;
  eventType: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  lastLatencyMs: number | null;
  responseExcerpt: string | null;
  deliveredAt: string | null;
}

interface EndpointRow {
  id: number;
  team_id: number;
  url: string;
  event_types: string[];
  enabled: boolean;
  disabled_reason: string | null;
  failing_since: Date | null;
  created_at: Date;
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

function endpointView(r: EndpointRow): WebhookEndpointView {
  return {
    id: r.id,
    teamId: r.team_id,
    url: r.url,
    eventTypes: r.event_types,
    enabled: r.enabled,
    disabledReason: r.disabled_reason,
    failingSince: iso(r.failing_since),
    createdAt: iso(r.created_at)!,
  };
}

const ENDPOINT_COLUMNS = 'id, team_id, url, event_types, enabled, disabled_reason, failing_since, created_at';

/** Webhooks are team settings: a signed-in owner or admin (as for keys), or the operator. */
function requireWebhookAdmin(viewer: Viewer | null, teamId: number): void {
  const v = requireSettings(viewer, teamId, 'manage-keys');
  if (!v.isOperator) requireFusionPlan(v, 'changes');
}

/** The endpoint, after checking the caller administers its team; NOT_FOUND for another team's. */
async function ownedEndpoint(em: EntityManager, viewer: Viewer | null, id: number): Promise<EndpointRow> {
  const query = await nativeQuery(em);
  const [row] = await query<EndpointRow>(`select ${ENDPOINT_COLUMNS} from webhook_endpoint where id = $1`, [
    parseId('id', id),
  ]);
  const v = requireViewer(viewer);
  if (!row || (!v.isOperator && v.team?.id !== row.team_id)) {
    throw new AppError('NOT_FOUND', `webhook endpoint ${id} not found`);
  }
  requireWebhookAdmin(v, row.team_id);
  return row;
}

export async function listEndpoints(
  em: EntityManager,
  viewer: Viewer | null,
  teamId: number,
): Promise<WebhookEndpointView[]> {
  requireWebhookAdmin(viewer, parseId('teamId', teamId));
  const query = await nativeQuery(em);
  const rows = await query<EndpointRow>(
    `select ${ENDPOINT_COLUMNS} from webhook_endpoint where team_id = $1 order by id`,
    [teamId],
  );
  return rows.map(endpointView);
}

export async function createEndpoint(
  em: EntityManager,
  viewer: Viewer | null,
  input: { teamId: number; url: string; eventTypes?: string[] | null },
  allowLoopback: boolean,
): Promise<{ endpoint: WebhookEndpointView; secret: string }> {
  const teamId = parseId('teamId', input.teamId);
  requireWebhookAdmin(viewer, teamId);
  const url = (input.url ?? '').trim();
  const problem = webhookUrlProblem(url, allowLoopback);
  if (problem) throw badInput('url', problem);
  const eventTypes = [...new Set(input.eventTypes ?? [])];
  eventTypes.forEach((t, i) => {
    if (!(CHANGE_TYPES as readonly string[]).includes(t))
      throw badInput(`eventTypes.${i}`, `must be one of: ${CHANGE_TYPES.join(', ')}`);
  });
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const query = await nativeQuery(em);
  const [row] = await query<EndpointRow>(
    `insert into webhook_endpoint (team_id, url, event_types, secret)
     select $1, $2, $3, $4 where (select count(*) from webhook_endpoint where team_id = $1) < $5
     returning ${ENDPOINT_COLUMNS}`,
    [teamId, url, eventTypes, secret, MAX_ENDPOINTS_PER_TEAM],
  );
  if (!row) {
    throw new AppError(
      'CONFLICT',
      `a team may register at most ${MAX_ENDPOINTS_PER_TEAM} webhook endpoints: delete one first`,
    );
  }
  return { endpoint: endpointView(row), secret };
}

export async function deleteEndpoint(em: EntityManager, viewer: Viewer | null, id: number): Promise<boolean> {
  const row = await ownedEndpoint(em, viewer, id);
  const query = await nativeQuery(em);
  await query('delete from webhook_endpoint where id = $1', [row.id]);
  return true;
}

/** Turns a disabled endpoint back on; deliveries that failed while it was off can be sent again with redeliver. */
export async function enableEndpoint(
  em: EntityManager,
  viewer: Viewer | null,
  id: number,
): Promise<WebhookEndpointView> {
  const row = await ownedEndpoint(em, viewer, id);
  const query = await nativeQuery(em);
  const [updated] = await query<EndpointRow>(
    `update webhook_endpoint set enabled = true, disabled_reason = null, failing_since = null
      where id = $1 returning ${ENDPOINT_COLUMNS}`,
    [row.id],
  );
  return endpointView(updated);
}

/** Why an endpoint turned off from the settings or the API is off. */
export const DISABLED_BY_TEAM = 'disabled by the team';

/**
 * Turns an endpoint off: nothing more is queued for it, and deliveries still waiting fail now
 * (redeliver them after enabling it again). The disabled reason says the team did it.
 */
export async function disableEndpoint(
  em: EntityManager,
  viewer: Viewer | null,
  id: number,
): Promise<WebhookEndpointView> {
  const row = await ownedEndpoint(em, viewer, id);
  const query = await nativeQuery(em);
  // One statement, so the endpoint and its waiting deliveries change together.
  const [updated] = await query<EndpointRow>(
    `with waiting as (
       update webhook_delivery set status = 'failed', last_error = $3
        where endpoint_id = $1 and status = 'pending' returning id)
     update webhook_endpoint set enabled = false, disabled_reason = coalesce(disabled_reason, $2)
      where id = $1 returning ${ENDPOINT_COLUMNS}`,
    [row.id, DISABLED_BY_TEAM, NOT_SENT_DISABLED],
  );
  return endpointView(updated);
}

interface DeliveryRow {
  id: string;
  endpoint_id: number;
  event_id: string;
  event_type: string;
  status: WebhookDeliveryView['status'];
  attempts: number;
  next_attempt_at: Date;
  last_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  last_latency_ms: number | null;
  response_excerpt: string | null;
  delivered_at: Date | null;
}

const DELIVERY_SQL = `select d.id::text, d.endpoint_id, d.event_id::text, e.type as event_type, d.status, d.attempts,
  d.next_attempt_at, d.last_attempt_at, d.last_status_code, d.last_error, d.last_latency_ms, d.response_excerpt,
  d.delivered_at from webhook_delivery d join change_event e on e.id = d.event_id`;

function deliveryView(r: DeliveryRow): WebhookDeliveryView {
  return {
    id: r.id,
    endpointId: r.endpoint_id,
    eventId: r.event_id,
    eventType: r.event_type,
    status: r.status,
    attempts: r.attempts,
    nextAttemptAt: r.status === 'pending' ? iso(r.next_attempt_at) : null,
    lastAttemptAt: iso(r.last_attempt_at),
    lastStatusCode: r.last_status_code,
    lastError: r.last_error,
    lastLatencyMs: r.last_latency_ms,
    responseExcerpt: r.response_excerpt,
    deliveredAt: iso(r.delivered_at),
  };
}

/** The endpoint's deliveries, newest first; `before` pages back by delivery id. */
export async function listDeliveries(
  em: EntityManager,
  viewer: Viewer | null,
  input: { endpointId: number; first?: number | null; before?: string | null },
): Promise<WebhookDeliveryView[]> {
  const row = await ownedEndpoint(em, viewer, input.endpointId);
  const first = validateRange('first', input.first, WEBHOOK_DELIVERIES_LIMIT);
  if (input.before !== null && input.before !== undefined && !/^\d{1,19}$/u.test(input.before))
    throw badInput('before', 'must be a delivery id');
  const query = await nativeQuery(em);
  const rows = await query<DeliveryRow>(
    `${DELIVERY_SQL} where d.endpoint_id = $1 and ($2::bigint is null or d.id < $2::bigint) order by d.id desc limit $3`,
    [row.id, input.before ?? null, first],
  );
  return rows.map(deliveryView);
}

/** Sends a delivery again now, with the same webhook-id, whatever its state. */
export async function redeliver(
  em: EntityManager,
  viewer: Viewer | null,
  deliveryId: string,
): Promise<WebhookDeliveryView> {
  if (!/^\d{1,19}$/u.test(deliveryId)) throw badInput('id', 'must be a delivery id');
  const query = await nativeQuery(em);
  const [found] = await query<{ endpoint_id: number }>(
    'select endpoint_id from webhook_delivery where id = $1::bigint',
    [deliveryId],
  );
  if (!found) throw new AppError('NOT_FOUND', `webhook delivery ${deliveryId} not found`);
  const endpoint = await ownedEndpoint(em, viewer, found.endpoint_id);
  if (!endpoint.enabled) {
    throw new AppError(
      'CONFLICT',
      `webhook endpoint ${endpoint.id} is disabled: enable it before redelivering`,
    );
  }
  await query(
    `update webhook_delivery set status = 'pending', next_attempt_at = now(), attempts = 0 where id = $1::bigint`,
    [deliveryId],
  );
  const [row] = await query<DeliveryRow>(`${DELIVERY_SQL} where d.id = $1::bigint`, [deliveryId]);
  return deliveryView(row);
}
