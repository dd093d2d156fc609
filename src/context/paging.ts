import { generationsFor } from '../db/generation.js';
import type { RequestContext } from './context.js';
import { issueCursor, readCursor, staleCursor, type CursorKind } from './cursor.js';

export { CURSOR_DESCRIPTION } from './cursor.js';

/** A document read's position: rows skipped, and the search generation its first page was read at. */
interface GenerationPosition {
  o: number;
  g: string;
}

/**
 * Pages a document read (search, find, a project's documents) by offset, pinned to the search
 * generation its first page was read at: documents, extractions and chunks bump it in the
 * committing transaction (src/db/generation.ts), so while it holds, the order pages are cut from
 * is the same, and paging to the end visits every row once. Once it moves (a document added,
 * changed or re-indexed), a later page is refused as stale rather than answered out of line.
 */
export async function pagedByGeneration<R extends { meta: object }>(
  ctx: RequestContext,
  kind: CursorKind,
  args: unknown,
  cursor: string | null | undefined,
  read: (offset: number) => Promise<{ result: R; more: boolean; end: number }>,
): Promise<R & { meta: { nextCursor: string | null } }> {
  const config = ctx.deps.config;
  const position = cursor ? readCursor<GenerationPosition>(config, ctx.viewer, kind, args, cursor) : null;
  // Tagged per process ("<database>:<n>"): the counter is what every instance shares.
  const generation = (await generationsFor(ctx.em)).search.split(':').pop()!;
  if (position && position.g !== generation) throw staleCursor();
  const { result, more, end } = await read(position?.o ?? 0);
  const nextCursor = more ? issueCursor(config, ctx.viewer, kind, args, { o: end, g: generation }) : null;
  // The result may be a kept answer shared with other requests: copied, never changed.
  return { ...result, meta: { ...result.meta, nextCursor } };
}
