import { Arg, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import { requireOperator, requireViewer } from '../../auth/entitlements.js';
import type { RequestContext } from '../../context/context.js';
import * as admin from '../../services/admin.service.js';
import { requireSettingsAccess, settingsTeamScope } from '../../settings/settings.access.js';
import * as settings from '../../settings/settings.service.js';
import {
  CreateBuildingInput,
  CreateFloorPlanInput,
  CreateProjectInput,
  BuildingType,
  FloorPlanType,
  ProjectType,
} from '../types/project.type.js';
import {
  AccessTokenType,
  AddMembershipInput,
  ApiKeyType,
  CreateAccessTokenInput,
  CreateApiKeyInput,
  CreatedAccessToken,
  CreatedApiKey,
  CreateTeamInput,
  CreateUserInput,
  MembershipType,
  TeamType,
  UpdateTeamInput,
  UserType,
  ViewerType,
} from '../types/team.type.js';

/**
 * The operator contract: mutations allowed only with PDS_ADMIN_TOKEN, except the key and token
 * mutations, which a signed-in owner or admin of the team may use too. Names are fixed; outside
 * checks use them.
 */
@Resolver()
export class AdminResolver {
  @Query(() => ViewerType, { description: 'Who is calling, with team, plan and scopes' })
  viewer(@Ctx() ctx: RequestContext): ViewerType {
    const v = requireViewer(ctx.viewer);
    return {
      credentialKind: v.credential.kind,
      team: v.team,
      user: v.user,
      role: v.role,
      scopes: [...v.scopes],
      isOperator: v.isOperator,
    };
  }

  @Mutation(() => TeamType)
  createTeam(@Ctx() ctx: RequestContext, @Arg('input', () => CreateTeamInput) input: CreateTeamInput) {
    requireOperator(ctx.viewer);
    return admin.createTeam(ctx.em, input);
  }

  @Mutation(() => TeamType)
  updateTeam(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => Int) id: number,
    @Arg('input', () => UpdateTeamInput) input: UpdateTeamInput,
  ) {
    requireOperator(ctx.viewer);
    return admin.updateTeam(ctx.em, id, input);
  }

  @Mutation(() => UserType)
  createUser(@Ctx() ctx: RequestContext, @Arg('input', () => CreateUserInput) input: CreateUserInput) {
    requireOperator(ctx.viewer);
    return admin.createUser(ctx.em, input);
  }

  @Mutation(() => MembershipType)
  addMembership(
    @Ctx() ctx: RequestContext,
    @Arg('input', () => AddMembershipInput) input: AddMembershipInput,
  ) {
    requireOperator(ctx.viewer);
    return admin.addMembership(ctx.em, input);
  }

  @Mutation(() => Boolean, {
    description: 'Removes a user from a team; their connector tokens stop working at once',
  })
  removeMembership(
    @Ctx() ctx: RequestContext,
    @Arg('teamId', () => Int) teamId: number,
    @Arg('userId', () => Int) userId: number,
  ) {
    requireOperator(ctx.viewer);
    return admin.removeMembership(ctx.em, teamId, userId);
  }

  @Mutation(() => ProjectType)
  createProject(
    @Ctx() ctx: RequestContext,
    @Arg('input', () => CreateProjectInput) input: CreateProjectInput,
  ) {
    requireOperator(ctx.viewer);
    return admin.createProject(ctx.em, input);
  }

  @Mutation(() => BuildingType)
  createBuilding(
    @Ctx() ctx: RequestContext,
    @Arg('input', () => CreateBuildingInput) input: CreateBuildingInput,
  ) {
    requireOperator(ctx.viewer);
    return admin.createBuilding(ctx.em, input);
  }

  @Mutation(() => FloorPlanType)
  createFloorPlan(
    @Ctx() ctx: RequestContext,
    @Arg('input', () => CreateFloorPlanInput) input: CreateFloorPlanInput,
  ) {
    requireOperator(ctx.viewer);
    return admin.createFloorPlan(ctx.em, input);
  }

  @Mutation(() => CreatedApiKey, {
    description: 'Creates a Fusion API key; the secret is returned only here',
  })
  createApiKey(@Ctx() ctx: RequestContext, @Arg('input', () => CreateApiKeyInput) input: CreateApiKeyInput) {
    const viewer = requireSettingsAccess(ctx.viewer, input.teamId);
    return admin.createApiKey(ctx.em, input, viewer.user?.id ?? null);
  }

  @Mutation(() => ApiKeyType)
  revokeApiKey(@Ctx() ctx: RequestContext, @Arg('id', () => Int) id: number) {
    const teamId = settingsTeamScope(ctx.viewer);
    return admin.revokeApiKey(ctx.em, id, teamId ?? undefined);
  }

  @Mutation(() => CreatedAccessToken, {
    description: 'Creates an MCP access token; the secret is returned only here',
  })
  createAccessToken(
    @Ctx() ctx: RequestContext,
    @Arg('input', () => CreateAccessTokenInput) input: CreateAccessTokenInput,
  ) {
    const viewer = requireSettingsAccess(ctx.viewer, input.teamId);
    return settings.createAccessToken(ctx.em, input, viewer);
  }

  @Mutation(() => AccessTokenType)
  revokeAccessToken(@Ctx() ctx: RequestContext, @Arg('id', () => Int) id: number) {
    const teamId = settingsTeamScope(ctx.viewer);
    return settings.revokeAccessToken(ctx.em, id, teamId);
  }
}
