import type { FastifyBaseLogger as Logger } from 'fastify';
import { onConnection } from '../db/native.js';

/**
 * Change event retention: events older than CHANGE_EVENT_RETENTION_DAYS are deleted, oldest first
 * in the feed's order, with their webhook delivery log (the foreign key cascades). Only a prefix of
 * the feed is ever deleted, and only events the webhook fan-out has passed (so they are final: no
 * running transaction can still add one before them) and none with a delivery still pending. The
 * last event deleted is the horizon: a feed cursor before it is refused, since the events after it
 * up to the horizon are gone (src/changes/changes.service.ts).
 */

/** Events one statement deletes; a round repeats until nothing more is due. */
const PRUNE_BATCH = 1000;
/** How often a worker process looks for events to delete. */
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;

const PRUNE_SQL = `with horizon as (select 1 from change_event_horizon where id = 1 for update),
  ordered as (
    select e.tx, e.id,
           bool_and(e.occurred_at < now() - make_interval(days => $1)
                    and (e.tx, e.id) <= (w.tx, w.event_id)
                    and not exists (select 1 from webhook_delivery d
                                     where d.event_id = e.id and d.status = 'pending'))
             over (order by e.tx, e.id) as prunable
      from change_event e cross join webhook_dispatch w
     where w.id = 1 and exists (select 1 from horizon)
     order by e.tx, e.id
     limit $2),
  last as (select tx, id from ordered where prunable order by tx desc, id desc limit 1),
  gone as (delete from change_event e using last where (e.tx, e.id) <= (last.tx, last.id) returning e.id)
update change_event_horizon h set tx = last.tx, event_id = last.id, pruned_at = now()
  from last where h.id = 1
returning (select count(*) from gone)::int as deleted`;

export class ChangeEventPruner {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  constructor(
    private readonly pool: object,
    /** Days events are kept; 0 keeps them forever. */
    private readonly retentionDays: number,
    private readonly log: Pick<Logger, 'info' | 'error'>,
  ) {}

  /** Prunes now and then every hour, in the background; nothing when events are kept forever. */
  start(): void {
    if (this.retentionDays === 0 || this.timer) return;
    const tick = () => {
      void this.runOnce().catch((err: unknown) => this.log.error({ err }, 'change event pruning failed'));
    };
    this.timer = setInterval(tick, PRUNE_INTERVAL_MS);
    this.timer.unref();
    setTimeout(tick, 0).unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  /** Deletes every event due, batch by batch; returns how many. One round at a time per process. */
  runOnce(): Promise<number> {
    this.running ??= this.prune().finally(() => (this.running = null));
    return this.running;
  }

  private async prune(): Promise<number> {
    if (this.retentionDays === 0) return 0;
    let total = 0;
    for (;;) {
      const deleted = await onConnection(this.pool, async (client) => {
        const { rows } = await client.query<{ deleted: number }>(PRUNE_SQL, [
          this.retentionDays,
          PRUNE_BATCH,
        ]);
        return rows[0]?.deleted ?? 0;
      });
      total += deleted;
      if (deleted < PRUNE_BATCH) break;
    }
    if (total > 0)
      this.log.info({ deleted: total, retentionDays: this.retentionDays }, 'change events pruned');
    return total;
  }
}
