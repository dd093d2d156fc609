import http from 'node:http';
import https from 'node:https';
import { Webhook } from 'standardwebhooks';
import type { FastifyBaseLogger as Logger } from 'fastify';
import { onConnection, queryOn, type NativeClient } from '../db/native.js';
import { standingProblem } from '../auth/entitlements.js';
import { eventView } from '../changes/changes.service.js';
import { guardedLookup } from '../net/public-address.js';

/** The last error of a delivery its endpoint's disabling kept from being sent. */
export const NOT_SENT_DISABLED = 'not sent: the endpoint was disabled';

/**
 * Webhook delivery, at least once. Two steps run in every worker process:
 *
 * - fan-out: in one statement, read the change feed after the dispatcher's position, queue a
 *   delivery row per matching enabled endpoint, and move the position unless another worker moved
 *   it first; the (endpoint, event) key keeps every event once per endpoint.
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
/** Deliveries claimed and sent at once. */
export const SEND_BATCH = 50;
/** Deliveries a round sends at most before the fan-out looks at the feed again. */
const ROUND_DELIVERIES = 2000;
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

  /**
   * One round of fan-out and sending: what the loop runs, and what tests call to wait for work.
   * Events found by the first fan-out are queued before anything is sent; while a backlog remains
   * (a fan-out took a full batch), the next fan-out runs beside the sending.
   */
  async runOnce(): Promise<number> {
    const fanning = {
      backlog: (await this.fanOut()) === FAN_OUT_BATCH,
      running: null as Promise<void> | null,
    };
    const feed = () => {
      if (!fanning.backlog || fanning.running || this.stopped) return;
      fanning.running = this.fanOut()
        .then((events) => {
          fanning.backlog = events === FAN_OUT_BATCH;
        })
        .catch((err: unknown) => {
          // The next round's fan-out, which runs first, tries again.
          fanning.backlog = false;
          this.log.warn({ err }, 'webhook fan-out failed; retrying');
        })
        .finally(() => {
          fanning.running = null;
        });
    };
    try {
      return await this.sendDue(feed);
    } finally {
      await fanning.running;
    }
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

  /** Queues the deliveries of the next events of the feed; the number of events read. */
  private async fanOut(): Promise<number> {
    const { rows } = await queryOn<{ positioned: number; events: number }>(this.pool, {
      name: 'webhook_fan_out',
      text: FAN_OUT,
      values: [FAN_OUT_BATCH],
    });
    if (rows[0]?.positioned !== 1) throw new Error('webhook_dispatch has no row: the migrations did not run');
    return rows[0].events;
  }

  /**
   * Sends what is due, batch after batch, until nothing is or the round has sent its share: while
   * one batch's POSTs are out, the next batch is claimed and the previous one's outcomes recorded,
   * so the database's work overlaps the sending instead of adding to it. An outcome not recorded
   * (this worker died first) comes due again when its lease runs out, and is sent again under the
   * same `webhook-id`.
   */
  private async sendDue(feed: () => void): Promise<number> {
    let sent = 0;
    let recording: Promise<void> | null = null;
    /** Endpoints this round's outcomes disabled: their deliveries already claimed are not sent. */
    const disabled = new Set<number>();
    let next: Promise<Claimed[]> | null = this.claim();
    try {
      while (next) {
        const batch: Claimed[] = await next;
        if (batch.length === 0) break;
        sent += batch.length;
        feed();
        next = batch.length === SEND_BATCH && sent < ROUND_DELIVERIES && !this.stopped ? this.claim() : null;
        // Settled here so that a failed claim is not an unhandled rejection while the batch is sent.
        next?.catch(() => undefined);
        const outcomes = await Promise.all(
          batch.filter((d) => !disabled.has(d.endpoint_id)).map((d) => this.deliver(d)),
        );
        for (const o of outcomes) if (o.disable !== null) disabled.add(o.endpointId);
        await recording;
        recording = outcomes.length > 0 ? this.record(outcomes) : null;
      }
    } finally {
      // A round that fails midway leaves nothing running behind it; what it claimed and did not
      // record comes due again when the lease runs out.
      await Promise.allSettled([next, recording]);
    }
    await recording;
    return sent;
  }

  private async claim(): Promise<Claimed[]> {
    const leaseSeconds = Math.ceil(this.settings.timeoutMs / 1000) + 5;
    const { rows } = await queryOn<Claimed>(this.pool, {
      name: 'webhook_claim',
      text: CLAIM,
      values: [SEND_BATCH, leaseSeconds],
    });
    return rows;
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
    const started = performance.now();
    const answer = await post(d.url, webhookPayload(d.event), `msg_${d.event.id}`, d.secret, this.settings);
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
    const params = [
      column('id'),
      column('status'),
      column('retryIn'),
      column('code'),
      column('error'),
      column('excerpt'),
      column('latencyMs'),
      working,
      failing,
    ];
    // The common round, nothing disabled: one statement.
    if (disabled.length === 0) return queryOn(this.pool, RECORD_STATEMENT(params)).then(() => undefined);
    return onConnection(this.pool, async (client: NativeClient) => {
      await client.query('begin');
      await client.query(RECORD_STATEMENT(params));
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

// The round's three statements are prepared once per connection (named): planning them would
// otherwise cost more than running them.

/**
 * The deliverer's statements commit without waiting for their WAL to reach the disk
 * (`synchronous_commit` off for their own transaction, as `SET LOCAL` would set it in a block). A
 * server crash can then lose the last moments of bookkeeping, which at-least-once delivery absorbs:
 * a lost claim or outcome sends the delivery again under the same `webhook-id`, a lost fan-out
 * queues its events again. The events are written by the changes' own transactions, which keep
 * the server's setting.
 */
const COMMIT_ASYNC = `set_config('synchronous_commit', 'off', true)`;

/**
 * The fan-out, one statement without a lock: it reads the position, queues the events after it
 * and moves the position only if no other worker moved it meanwhile. A worker that loses the race
 * queued nothing new (the (endpoint, event) key), and its next round starts from the winner's
 * position. With nothing new it writes nothing, so an idle round costs one read.
 */
const FAN_OUT = `with position as (select tx, event_id from webhook_dispatch where id = 1),
  batch as (
    select e.tx, e.id, e.type, e.occurred_at from change_event e
     where (e.tx, e.id) > ((select tx from position), (select event_id from position))
       and e.tx < pg_snapshot_xmin(pg_current_snapshot())
     order by e.tx, e.id limit $1),
  queued as (
    insert into webhook_delivery (endpoint_id, event_id)
    select w.id, b.id from batch b
      join webhook_endpoint w on w.enabled and (w.event_types = '{}' or b.type = any(w.event_types))
      join team t on t.id = w.team_id and t.plan in ('pro', 'elite')
     where b.occurred_at >= w.created_at
    on conflict do nothing),
  last as (select tx, id from batch order by tx desc, id desc limit 1),
  moved as (
    update webhook_dispatch d set tx = last.tx, event_id = last.id
      from last, position p
     where d.id = 1 and d.tx = p.tx and d.event_id = p.event_id)
  select (select count(*) from position)::int as positioned, (select count(*) from batch)::int as events,
         ${COMMIT_ASYNC} as commit_mode`;

/**
 * The claim ($1 deliveries, a lease of $2 seconds): due deliveries, leased for the request's
 * timeout and a few seconds so that a killed worker's claim comes due again, with what sending
 * them needs.
 */
export const CLAIM = `with due as (
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
         row_to_json(e) as event, ${COMMIT_ASYNC} as commit_mode
    from claimed c join webhook_endpoint w on w.id = c.endpoint_id
    join team t on t.id = w.team_id
    cross join lateral (
      select ce.id::text as id, ce.tx::text as tx, ce.occurred_at, ce.type, ce.subject_type,
             ce.subject_id, ce.project_id, ce.changes
        from change_event ce where ce.id = c.event_id) e`;

/**
 * A round's outcomes: the deliveries, then what they say of their endpoints (working again: no
 * longer failing; failing: failing since now, if not already).
 */
const RECORD = `with recorded as (
    update webhook_delivery d set
      status = v.status,
      next_attempt_at = case when v.status = 'pending' then now() + make_interval(secs => v.retry) else d.next_attempt_at end,
      last_status_code = v.code, last_error = v.error, response_excerpt = v.excerpt, last_latency_ms = v.latency,
      delivered_at = case when v.status = 'delivered' then now() end
    from unnest($1::bigint[], $2::text[], $3::float8[], $4::int[], $5::text[], $6::text[], $7::int[])
         as v(id, status, retry, code, error, excerpt, latency)
    where d.id = v.id),
  endpoints as (
    update webhook_endpoint set failing_since = case when id = any($8::int[]) then null else now() end
     where (id = any($8::int[]) and failing_since is not null) or (id = any($9::int[]) and failing_since is null))
  select ${COMMIT_ASYNC} as commit_mode`;

const RECORD_STATEMENT = (values: unknown[]) => ({ name: 'webhook_record', text: RECORD, values });

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

/** The body of an event's delivery: its type, its time and the event as the feed gives it. */
export function webhookPayload(row: Parameters<typeof eventView>[0]): string {
  const event = eventView(row);
  return JSON.stringify({ type: event.type, timestamp: event.occurredAt, data: event });
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
