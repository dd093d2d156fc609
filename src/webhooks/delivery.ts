import http from 'node:http';
import https from 'node:https';
import { Webhook } from 'standardwebhooks';
import type { FastifyBaseLogger as Logger } from 'fastify';
import { onConnection, type NativeClient } from '../db/native.js';
import { standingProblem } from '../auth/entitlements.js';
import { eventView } from '../changes/changes.service.js';
import { guardedLookup } from './webhook-url.js';

/**
 * Webhook delivery, at least once. Two steps run in every worker process:
 *
 * - fan-out: in one transaction, read the change feed after the dispatcher's position, queue a
 *   delivery row per matching enabled endpoint, and move the position. Concurrent workers queue
 *   behind the position's row lock; the (endpoint, event) key keeps every event once per endpoint.
 * - send: claim due deliveries (`for update skip locked`, leased for the request's timeout and a few seconds so a
 *   killed worker's claim comes due again), POST the signed payload, record the outcome, and on
 *   failure schedule the next attempt from the retry schedule. A delivery that exhausts the
 *   schedule (about three days by default) fails, and its endpoint is disabled; so does a 410 Gone.
 *
 * Every attempt of one event to one endpoint carries the same `webhook-id` (`msg_<event id>`), the
 * receiver's de-duplication key. Order is not promised: each payload carries the event's id and
 * time, and the feed gives the committed order.
 */

export interface WebhookSettings {
  allowLoopback: boolean;
  timeoutMs: number;
  /** Seconds to wait before each retry; the delivery fails after the last. */
  retrySchedule: readonly number[];
  /** How often due work is looked for when nothing wakes the loop. */
  pollMs: number;
}

interface Claimed {
  id: string;
  attempts: number;
  url: string;
  secret: string;
  endpoint_id: number;
  plan: string;
  subscription_status: string;
  past_due_since: Date | null;
  event: Parameters<typeof eventView>[0];
}

const FAN_OUT_BATCH = 500;
const SEND_BATCH = 20;
const EXCERPT_BYTES = 500;

export class WebhookDeliverer {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private again = false;

  constructor(
    private readonly pool: object,
    private readonly settings: WebhookSettings,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.schedule(0);
  }

  /** Looks for work now (a change was just committed here, or a test wants it). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** One round of fan-out and sending: what the loop runs, and what tests call to wait for work. */
  async runOnce(): Promise<number> {
    await this.fanOut();
    return this.sendDue();
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.runOnce()
        .then((sent) => {
          if (sent > 0) this.again = true;
        })
        .catch((err: unknown) => this.log.warn({ err }, 'webhook delivery round failed; retrying'))
        .finally(() => {
          this.running = null;
          const soon = this.again;
          this.again = false;
          this.schedule(soon ? 0 : this.settings.pollMs);
        });
    }, ms);
    this.timer.unref();
  }

  private fanOut(): Promise<void> {
    return onConnection(this.pool, async (client) => {
      await client.query('begin');
      const [position] = (
        await client.query<{ tx: string; event_id: string }>(
          'select tx::text, event_id::text from webhook_dispatch where id = 1 for update',
        )
      ).rows;
      if (!position) throw new Error('webhook_dispatch has no row: the migrations did not run');
      const { rows } = await client.query<{ tx: string; id: string }>(
        `select tx::text, id::text from change_event
          where (tx, id) > ($1::text::xid8, $2::bigint) and tx < pg_snapshot_xmin(pg_current_snapshot())
          order by tx, id limit $3`,
        [position.tx, position.event_id, FAN_OUT_BATCH],
      );
      const last = rows.at(-1);
      if (last) {
        await client.query(
          `insert into webhook_delivery (endpoint_id, event_id)
           select w.id, e.id from change_event e
             join webhook_endpoint w on w.enabled and (w.event_types = '{}' or e.type = any(w.event_types))
             join team t on t.id = w.team_id and t.plan in ('pro', 'elite')
            where e.id = any($1::bigint[]) and e.occurred_at >= w.created_at
           on conflict do nothing`,
          [rows.map((r) => r.id)],
        );
        await client.query(
          'update webhook_dispatch set tx = $1::text::xid8, event_id = $2::bigint where id = 1',
          [last.tx, last.id],
        );
      }
      await client.query('commit');
    });
  }

  private async sendDue(): Promise<number> {
    const leaseSeconds = Math.ceil(this.settings.timeoutMs / 1000) + 5;
    const claimed = await onConnection(this.pool, async (client) => {
      const { rows } = await client.query<Claimed>(
        `with due as (
           select d.id from webhook_delivery d
            where d.status = 'pending' and d.next_attempt_at <= now()
            order by d.next_attempt_at, d.id limit $1 for update skip locked),
         claimed as (
           update webhook_delivery d set attempts = d.attempts + 1,
                  next_attempt_at = now() + make_interval(secs => $2), last_attempt_at = now()
             from due where d.id = due.id
           returning d.id, d.attempts, d.endpoint_id, d.event_id)
         select c.id::text, c.attempts, w.url, w.secret, w.id as endpoint_id,
                t.plan, t.subscription_status, t.past_due_since,
                row_to_json(e) as event
           from claimed c join webhook_endpoint w on w.id = c.endpoint_id
           join team t on t.id = w.team_id
           join (select id::text, tx::text, occurred_at, type, subject_type, subject_id, project_id, changes
                   from change_event) e on e.id = c.event_id::text`,
        [SEND_BATCH, leaseSeconds],
      );
      return rows;
    });
    await Promise.all(claimed.map((d) => this.deliver(d)));
    return claimed.length;
  }

  private async deliver(d: Claimed): Promise<void> {
    const entitled =
      (d.plan === 'pro' || d.plan === 'elite') &&
      !standingProblem({
        subscriptionStatus: d.subscription_status as never,
        pastDueSince: d.past_due_since ? new Date(d.past_due_since) : null,
      });
    if (!entitled) {
      await this.record(d, { ok: false, final: true, error: 'the team plan no longer includes webhooks' });
      return;
    }
    const event = eventView({ ...d.event, occurred_at: new Date(d.event.occurred_at) });
    const payload = JSON.stringify({ type: event.type, timestamp: event.occurredAt, data: event });
    const messageId = `msg_${event.id}`;
    const started = performance.now();
    const outcome = await post(d.url, payload, messageId, d.secret, this.settings);
    const latencyMs = Math.round(performance.now() - started);
    const ok = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
    await this.record(d, {
      ok,
      final: ok || outcome.status === 410,
      gone: outcome.status === 410,
      status: outcome.status,
      error: outcome.error,
      excerpt: outcome.excerpt,
      latencyMs,
    });
  }

  private record(
    d: Claimed,
    o: {
      ok: boolean;
      final: boolean;
      gone?: boolean;
      status?: number | null;
      error?: string | null;
      excerpt?: string | null;
      latencyMs?: number;
    },
  ): Promise<void> {
    const retryIn = this.settings.retrySchedule[d.attempts - 1];
    const exhausted = !o.ok && (o.final || retryIn === undefined);
    return onConnection(this.pool, async (client: NativeClient) => {
      await client.query('begin');
      await client.query(
        `update webhook_delivery set
           status = case when $2 then 'delivered' when $3 then 'failed' else 'pending' end,
           next_attempt_at = case when $2 or $3 then next_attempt_at else now() + make_interval(secs => $4) end,
           last_status_code = $5, last_error = $6, response_excerpt = $7, last_latency_ms = $8,
           delivered_at = case when $2 then now() end
         where id = $1::bigint`,
        [
          d.id,
          o.ok,
          exhausted,
          retryIn ?? 0,
          o.status ?? null,
          o.error?.slice(0, 500) ?? null,
          o.excerpt ?? null,
          o.latencyMs ?? null,
        ],
      );
      if (o.ok) {
        await client.query('update webhook_endpoint set failing_since = null where id = $1', [d.endpoint_id]);
      } else if (o.gone || exhausted) {
        const reason = o.gone
          ? 'the endpoint answered 410 Gone'
          : `a delivery failed every attempt over ${describeSchedule(this.settings.retrySchedule)}`;
        await client.query(
          `update webhook_endpoint set enabled = false, disabled_reason = $2,
                  failing_since = coalesce(failing_since, now()) where id = $1`,
          [d.endpoint_id, reason],
        );
        this.log.warn({ endpointId: d.endpoint_id, reason }, 'webhook endpoint disabled');
      } else {
        await client.query(
          'update webhook_endpoint set failing_since = coalesce(failing_since, now()) where id = $1',
          [d.endpoint_id],
        );
      }
      await client.query('commit');
    });
  }
}

export function describeSchedule(schedule: readonly number[]): string {
  const seconds = schedule.reduce((a, b) => a + b, 0);
  return seconds >= 86_400 ? `${Math.round(seconds / 3600)} hours` : `${Math.round(seconds)} seconds`;
}

interface PostOutcome {
  status: number | null;
  error: string | null;
  excerpt: string | null;
}

/** One signed POST (Standard Webhooks headers), reading at most a short excerpt of the answer. */
export function post(
  url: string,
  payload: string,
  messageId: string,
  secret: string,
  settings: Pick<WebhookSettings, 'allowLoopback' | 'timeoutMs'>,
): Promise<PostOutcome> {
  const timestamp = new Date();
  const signature = new Webhook(secret).sign(messageId, timestamp, payload);
  const target = new URL(url);
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const done = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    const req = client.request(
      target,
      {
        method: 'POST',
        lookup: guardedLookup(settings.allowLoopback) as never,
        timeout: settings.timeoutMs,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'property-data-service-webhooks',
          'webhook-id': messageId,
          'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
          'webhook-signature': signature,
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size < EXCERPT_BYTES) chunks.push(chunk);
          size += chunk.length;
          if (size >= EXCERPT_BYTES) res.destroy();
        });
        const finish = () =>
          done({
            status: res.statusCode ?? null,
            error: null,
            excerpt: Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8') || null,
          });
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
      },
    );
    req.setTimeout(settings.timeoutMs, () => {
      req.destroy(new Error(`no answer within ${settings.timeoutMs} ms`));
    });
    req.on('error', (err) => done({ status: null, error: err.message, excerpt: null }));
    req.end(payload);
  });
}
