import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../context/context.js';
import { requireSettings } from '../credentials/credentials.access.js';
import { USAGE_DAYS, teamUsage, type TeamUsageView } from './usage.service.js';
import { TeamUsageType } from './usage.types.js';

@Resolver()
export class UsageResolver {
  @Query(() => TeamUsageType, {
    description:
      "The team's requests per API key and MCP access token per day, and each key's current rate-limit window (the figures the settings' Usage page shows)",
  })
  teamUsage(
    @Ctx() ctx: RequestContext,
    @Arg('teamId', () => Int) teamId: number,
    @Arg('days', () => Int, { defaultValue: USAGE_DAYS, description: `1 to ${USAGE_DAYS}` }) days: number,
  ): Promise<TeamUsageView> {
    requireSettings(ctx.viewer, teamId, 'view');
    return teamUsage(ctx.em, ctx.deps.limiter, teamId, days, ctx.deps.clock());
  }
}
