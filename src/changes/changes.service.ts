import type { EntityManager } from '@mikro-orm/postgresql';
import { requireFusionPlan, requireScope, requireViewer } from '../auth/entitlements.js';
import type { Viewer } from '../auth/viewer.js';
import { nativeQuery } from '../db/native.js';
import { badInput } from '../errors/catalogue.js';
import { parseId, validateRange } from '../errors/validate.js';
import { CHANGES_LIMIT } from '../limits.js';

/**
 * The change feed: what changed in projects, buildings, floor plans and documents, in the order
 * the changes committed. Events are written by triggers in the writing transaction (see the
 * ChangeEvents migration); this reads them behind an opaque cursor.
 */

export const CHANGE_TYPES = [
  'project.created',
  'project.changed',
  'building.created',
  'building.changed',
  'floor_plan.created',
  'floor_plan.changed',
  'document.published',
  'document.superseded',
  'document.indexed',
  'document.failed',
] as const;
export type ChangeType = (typeof CHANGE_TYPES)[number];

export interface FieldChangeView {
  field: string;
  /** The value before the change; null on creation. */
  before: unknown;
  after: unknown;
}

export interface ChangeEventView {
  /** Unique and stable: the de-duplication key of webhook deliveries too. */
  id: string;
  occurredAt: string;
  type: ChangeType;
  subject: { type: 'project' | 'building' | 'floor_plan' | 'document'; id: number; projectId: number | null };
  changes: FieldChangeView[];
}

export interface ChangeFeedView {
  data: ChangeEventView[];
  meta: { returned: number; nextCursor: string; hasMore: boolean };
}

/** The feed reads what the Fusion plans buy: an API key needs the `changes` scope, and every caller a Pro or Elite plan. */
export function requireChangeFeed(viewer: Viewer | null): Viewer {
  const v = requireViewer(viewer);
  if (v.credential.kind === 'api-key') requireScope(v, 'changes');
  requireFusionPlan(v, 'changes');
  return v;
}

/** Where a reader stands: after the event (tx, id); the start of the feed is (0, 0). */
interface Position {
  tx: string;
  id: string;
}

const START: Position = { tx: '0', id: '0' };

export function writeCursor(p: Position): string {
  return Buffer.from(`chg:${p.tx}:${p.id}`, 'utf8').toString('base64url');
}

export function readCursor(cursor: string | null | undefined): Position {
  if (cursor === null || cursor === undefined || cursor === '') return START;
  const match = /^chg:(\d{1,20}):(\d{1,19})$/u.exec(
    cursor.length <= 80 ? Buffer.from(cursor, 'base64url').toString('utf8') : '',
  );
  if (!match) throw badInput('after', 'is not a cursor the change feed returned: start again without one');
  return { tx: match[1], id: match[2] };
}

/** Whether position a comes before b in the feed's order. */
function before(a: Position, b: Position): boolean {
  const [atx, btx] = [BigInt(a.tx), BigInt(b.tx)];
  return atx < btx || (atx === btx && BigInt(a.id) < BigInt(b.id));
}

interface EventRow {
  id: string;
  tx: string;
  occurred_at: Date;
  type: ChangeType;
  subject_type: ChangeEventView['subject']['type'];
  subject_id: number;
  project_id: number | null;
  changes: Record<string, { before: unknown; after: unknown }>;
}

export function eventView(r: EventRow): ChangeEventView {
  return {
    id: r.id,
    occurredAt: new Date(r.occurred_at).toISOString(),
    type: r.type,
    subject: { type: r.subject_type, id: r.subject_id, projectId: r.project_id },
    changes: Object.entries(r.changes).map(([field, c]) => ({ field, before: c.before, after: c.after })),
  };
}

/**
 * Events after the cursor, oldest first. Only events of transactions older than every transaction
 * still running are read, so no event can later commit behind a cursor handed out: a long
 * transaction holds the feed back until it ends, never loses an event.
 */
export async function listChanges(
  em: EntityManager,
  input: {
    after?: string | null;
    first?: number | null;
    types?: readonly string[] | null;
    projectId?: number | null;
  },
): Promise<ChangeFeedView> {
  const from = readCursor(input.after);
  const first = validateRange('first', input.first, CHANGES_LIMIT);
  const types = input.types?.length ? [...new Set(input.types)] : null;
  types?.forEach((t, i) => {
    if (!(CHANGE_TYPES as readonly string[]).includes(t))
      throw badInput(`types.${i}`, `must be one of: ${CHANGE_TYPES.join(', ')}`);
  });
  const projectId =
    input.projectId === null || input.projectId === undefined ? null : parseId('projectId', input.projectId);
  const query = await nativeQuery(em, 'write');
  if (from !== START) {
    // Events up to the horizon were deleted (CHANGE_EVENT_RETENTION_DAYS): a cursor before it
    // would skip them without a word.
    const [horizon] = await query<Position>(
      'select tx::text, event_id::text as id from change_event_horizon where id = 1',
      [],
    );
    if (horizon && before(from, horizon)) {
      throw badInput(
        'after',
        'is older than the events the feed keeps: events after it were deleted. Start again without a cursor',
      );
    }
  }
  const rows = await query<EventRow>(
    `select id::text, tx::text, occurred_at, type, subject_type, subject_id, project_id, changes
       from change_event
      where (tx, id) > ($1::text::xid8, $2::bigint)
        and tx < pg_snapshot_xmin(pg_current_snapshot())
        and ($3::text[] is null or type = any($3::text[]))
        and ($4::int is null or project_id = $4::int)
      order by change_event.tx, change_event.id
      limit $5`,
    [from.tx, from.id, types, projectId, first + 1],
  );
  const page = rows.slice(0, first);
  const last = page.at(-1);
  return {
    data: page.map(eventView),
    meta: {
      returned: page.length,
      nextCursor: writeCursor(last ? { tx: last.tx, id: last.id } : from),
      hasMore: rows.length > first,
    },
  };
}
