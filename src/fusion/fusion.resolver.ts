import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
import { requireFusionAccess, requireViewer } from '../auth/entitlements.js';
import type { RequestContext } from '../context/context.js';
import { buildingLink, matchFloorPlans } from './fusion.service.js';
import { BuildingLink, FloorPlanListing, FloorPlanMatchResult } from './fusion.types.js';
import { MAX_LISTINGS } from '../limits.js';

/** The Fusion APIs as GraphQL: the REST facade runs these; direct GraphQL callers pass the same checks. */
@Resolver()
export class FusionResolver {
  @Query(() => BuildingLink, {
    description: "Building Link: a building's identities and project (scope building-links)",
  })
  buildingLink(@Ctx() ctx: RequestContext, @Arg('id', () => Int) id: number): Promise<BuildingLink> {
    requireFusionAccess(requireViewer(ctx.viewer), 'building-links');
    return buildingLink(ctx.em, id);
  }

  @Query(() => FloorPlanMatchResult, {
    description: `Floor Plan Match: 1 to ${MAX_LISTINGS} listings (scope floorplan-match)`,
  })
  async matchFloorPlans(
    @Ctx() ctx: RequestContext,
    @Arg('listings', () => [FloorPlanListing]) listings: FloorPlanListing[],
  ): Promise<FloorPlanMatchResult> {
    requireFusionAccess(requireViewer(ctx.viewer), 'floorplan-match');
    return { results: await matchFloorPlans(ctx.em, listings) };
  }
}
