import http from 'node:http';
import https from 'node:https';
import { Webhook } from 'standardwebhooks';
import type { FastifyBaseLogger as Logger } from 'fastify';
import { onConnection, type NativeClient } from '../db/native.js';
import { standingProblem } from '../auth/entitlements.js';
import { eventView } from '../changes/changes.service.js';
import { guardedLookup } from '../net/public-address.js';

/** The last error of a delivery its endpoint's disabling kept from being sent. */
export const NOT_SENT_DISABLED = 'not sent: the endpoint was disabled';

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
/** Deliveries one round claims and sends at once. */
export const SEND_BATCH = 50;
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
          order by change_event.tx, change_event.id limit $3`,
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
           cross join lateral (
             select ce.id::text as id, ce.tx::text as tx, ce.occurred_at, ce.type, ce.subject_type,
                    ce.subject_id, ce.project_id, ce.changes
               from change_event ce where ce.id = c.event_id) e`,
        [SEND_BATCH, leaseSeconds],
      );
      return rows;
    });
    const outcomes = await Promise.all(claimed.map((d) => this.deliver(d)));
    if (outcomes.length > 0) await this.record(outcomes);
    return claimed.length;
  }

  private async deliver(d: Claimed): Promise<Outcome> {
    const entitled =
      (d.plan === 'pro' || d.plan === 'elite') &&
      !standingProblem({
        subscriptionStatus: d.subscription_status as never,
        pastDueSince: d.past_due_since ? new Date(d.past_due_since) : null,
      });
    if (!entitled) {
      return this.outcome(
        d,
        { status: null, error: 'the team plan no longer includes webhooks', excerpt: null },
        null,
        true,
      );
    }
    const event = eventView({ ...d.event, occurred_at: new Date(d.event.occurred_at) });
    const payload = JSON.stringify({ type: event.type, timestamp: event.occurredAt, data: event });
    const started = performance.now();
    const answer = await post(d.url, payload, `msg_${event.id}`, d.secret, this.settings);
    return this.outcome(d, answer, Math.round(performance.now() - started), false);
  }

  /** What an attempt leaves: delivered; failed for good (410 Gone, schedule exhausted, plan gone); or due again. */
  private outcome(d: Claimed, answer: PostOutcome, latencyMs: number | null, refused: boolean): Outcome {
    const ok = answer.status !== null && answer.status >= 200 && answer.status < 300;
    const gone = answer.status === 410;
    const retryIn = this.settings.retrySchedule[d.attempts - 1];
    const status = ok ? 'delivered' : refused || gone || retryIn === undefined ? 'failed' : 'pending';
    let disable: string | null = null;
    if (gone) disable = 'the endpoint answered 410 Gone';
    else if (status === 'failed' && !refused)
      disable = `a delivery failed every attempt over ${describeSchedule(this.settings.retrySchedule)}`;
    return {
      id: d.id,
      endpointId: d.endpoint_id,
      status,
      retryIn: retryIn ?? 0,
      code: answer.status,
      error: answer.error?.slice(0, 500) ?? null,
      excerpt: answer.excerpt,
      latencyMs,
      disable,
    };
  }

  /** A round's outcomes in one transaction: the deliveries, then what they say of their endpoints. */
  private record(outcomes: Outcome[]): Promise<void> {
    const column = <K extends keyof Outcome>(key: K) => outcomes.map((o) => o[key]);
    const endpoints = (pick: (o: Outcome) => boolean) => [
      ...new Set(outcomes.filter(pick).map((o) => o.endpointId)),
    ];
    const working = endpoints((o) => o.status === 'delivered');
    const failing = endpoints((o) => o.status !== 'delivered').filter((id) => !working.includes(id));
    const disabled = outcomes.filter((o) => o.disable !== null);
    return onConnection(this.pool, async (client: NativeClient) => {
      await client.query('begin');
      await client.query(
        `update webhook_delivery d set
           status = v.status,
           next_attempt_at = case when v.status = 'pending' then now() + make_interval(secs => v.retry) else d.next_attempt_at end,
           last_status_code = v.code, last_error = v.error, response_excerpt = v.excerpt, last_latency_ms = v.latency,
           delivered_at = case when v.status = 'delivered' then now() end
         from unnest($1::bigint[], $2::text[], $3::float8[], $4::int[], $5::text[], $6::text[], $7::int[])
              as v(id, status, retry, code, error, excerpt, latency)
         where d.id = v.id`,
        [
          column('id'),
          column('status'),
          column('retryIn'),
          column('code'),
          column('error'),
          column('excerpt'),
          column('latencyMs'),
        ],
      );
      if (working.length > 0) {
        await client.query(
          'update webhook_endpoint set failing_since = null where id = any($1) and failing_since is not null',
          [working],
        );
      }
      if (failing.length > 0) {
        await client.query(
          'update webhook_endpoint set failing_since = now() where id = any($1) and failing_since is null',
          [failing],
        );
      }
      for (const o of disabled) {
        // As when the team disables it: the endpoint's other waiting deliveries are not sent either.
        await client.query(
          `with waiting as (
             update webhook_delivery set status = 'failed', last_error = $3
              where endpoint_id = $1 and status = 'pending' returning id)
           update webhook_endpoint set enabled = false, disabled_reason = $2 where id = $1 and enabled`,
          [o.endpointId, o.disable, NOT_SENT_DISABLED],
        );
        this.log.warn({ endpointId: o.endpointId, reason: o.disable }, 'webhook endpoint disabled');
      }
      await client.query('commit');
    });
  }
}

interface Outcome {
  id: string;
  endpointId: number;
  status: 'delivered' | 'failed' | 'pending';
  retryIn: number;
  code: number | null;
  error: string | null;
  excerpt: string | null;
  latencyMs: number | null;
  /** Why the endpoint is to be disabled, when this outcome disables it. */
  disable: string | null;
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
        lookup: guardedLookup(settings.allowLoopback),
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
