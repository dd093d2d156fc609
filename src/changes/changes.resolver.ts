import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../context/context.js';
import { CHANGES_LIMIT, describeRange } from '../limits.js';
import { listChanges, requireChangeFeed, type ChangeFeedView } from './changes.service.js';
import { ChangeFeed } from './changes.types.js';

/** The change feed: Pro and Elite; an API key needs the `changes` scope. */
@Resolver()
export class ChangesResolver {
  @Query(() => ChangeFeed, {
    description:
      'Changes to projects, buildings, floor plans and documents, oldest first, after a cursor. Start without one; keep meta.nextCursor and pass it as after to read what changed since. Pro and Elite plans; an API key needs the changes scope.',
  })
  changes(
    @Ctx() ctx: RequestContext,
    @Arg('after', () => String, { nullable: true, description: 'meta.nextCursor of the previous call' })
    after: string | null,
    @Arg('first', () => Int, {
      nullable: true,
      description: `Events to return: ${describeRange(CHANGES_LIMIT)}`,
    })
    first: number | null,
    @Arg('types', () => [String], { nullable: true, description: 'Only these event types' })
    types: string[] | null,
    @Arg('projectId', () => Int, { nullable: true, description: 'Only events of this project' })
    projectId: number | null,
  ): Promise<ChangeFeedView> {
    requireChangeFeed(ctx.viewer);
    return listChanges(ctx.em, { after, first, types, projectId });
  }
}
