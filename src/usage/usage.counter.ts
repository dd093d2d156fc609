import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import type { Viewer } from '../auth/viewer.js';
import { nativeQuery } from '../db/native.js';

declare module '../context/context.js' {
  interface AppDeps {
    /** Requests per key and token per day, counted in memory and written in the background. */
    usage: UsageCounter;
  }
}

/** The two tables a counted credential lives in. */
export type UsageKind = 'api-key' | 'access-token';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Distinct credential-days held in memory at most; past it new ones are dropped (and logged) until a flush. */
const MAX_PENDING = 50_000;

interface Pending {
  kind: UsageKind;
  id: number;
  teamId: number;
  /** Days since the epoch, UTC. */
  day: number;
  requests: number;
}

function usageKind(viewer: Viewer): UsageKind | null {
  switch (viewer.credential.kind) {
    case 'api-key':
      return 'api-key';
    case 'personal-token':
    case 'oauth-token':
      return 'access-token';
    case 'operator':
    case 'session':
      return null;
  }
}

/**
 * Requests per API key and MCP access token per day. The request path only adds one to a number
 * in memory; a timer writes what gathered to PostgreSQL (`credential_usage_day`) in one statement,
 * adding to the day's row, so the counts of every node sum up. A failed write keeps the counts for
 * the next one. What a crash can lose: the counts since the last write, at most
 * USAGE_FLUSH_INTERVAL_MS of this node's requests; a clean shutdown writes them first.
 */
export class UsageCounter {
  private pending = new Map<string, Pending>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private dropped = 0;

  constructor(
    private readonly em: EntityManager,
    private readonly log: FastifyBaseLogger,
    private readonly intervalMs: number,
  ) {}

  /** Counts one request made with the viewer's key or token (operator and session requests are not counted). */
  count(viewer: Viewer, now: Date): void {
    const kind = usageKind(viewer);
    const id = viewer.credential.id;
    if (!kind || id === null || !viewer.team) return;
    const day = Math.floor(now.getTime() / DAY_MS);
    const key = `${kind}:${id}:${day}`;
    const entry = this.pending.get(key);
    if (entry) {
      entry.requests++;
    } else if (this.pending.size < MAX_PENDING) {
      this.pending.set(key, { kind, id, teamId: viewer.team.id, day, requests: 1 });
    } else {
      this.dropped++;
    }
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), this.intervalMs);
    this.timer.unref();
  }

  /** Writes the counts gathered so far; one write at a time. */
  flush(): Promise<void> {
    this.flushing ??= this.write().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  /** Stops the timer and writes what is left. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flushing;
    await this.flush();
  }

  private async write(): Promise<void> {
    if (this.dropped) {
      this.log.warn(
        { dropped: this.dropped },
        'usage counts dropped: too many distinct credentials between writes',
      );
      this.dropped = 0;
    }
    if (!this.pending.size) return;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    try {
      const query = await nativeQuery(this.em);
      await query(
        `insert into credential_usage_day (credential_kind, credential_id, team_id, day, requests)
         select k, i, t, date '1970-01-01' + d, r
           from unnest($1::text[], $2::int[], $3::int[], $4::int[], $5::bigint[]) as u(k, i, t, d, r)
             where exists (select 1 from team where team.id = u.t)
         on conflict (credential_kind, credential_id, day)
         do update set requests = credential_usage_day.requests + excluded.requests`,
        [
          batch.map((p) => p.kind),
          batch.map((p) => p.id),
          batch.map((p) => p.teamId),
          batch.map((p) => p.day),
          batch.map((p) => p.requests),
        ],
      );
    } catch (err) {
      // Kept for the next write (the database may be back by then), within the same bound.
      for (const p of batch) {
        const key = `${p.kind}:${p.id}:${p.day}`;
        const entry = this.pending.get(key);
        if (entry) entry.requests += p.requests;
        else if (this.pending.size < MAX_PENDING) this.pending.set(key, p);
      }
      this.log.warn({ err }, 'usage counts could not be written; kept for the next write');
    }
  }
}
