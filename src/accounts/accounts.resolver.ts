import { Arg, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import { requireOperator, requireViewer } from '../auth/entitlements.js';
import type { UserView } from '../auth/viewer.js';
import type { RequestContext } from '../context/context.js';
import * as accounts from './accounts.service.js';
import type { MembershipView, TeamRecord } from './accounts.service.js';
import {
  AddMembershipInput,
  CreateTeamInput,
  CreateUserInput,
  MembershipType,
  TeamType,
  UpdateTeamInput,
  UserType,
  ViewerType,
} from './accounts.types.js';

/**
 * Who is calling, and the operator's account mutations (PDS_ADMIN_TOKEN only). Names are fixed:
 * outside checks use them.
 */
@Resolver()
export class AccountsResolver {
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
  createTeam(
    @Ctx() ctx: RequestContext,
    @Arg('input', () => CreateTeamInput) input: CreateTeamInput,
  ): Promise<TeamRecord> {
    requireOperator(ctx.viewer);
    return accounts.createTeam(ctx.em, input);
  }

  @Mutation(() => TeamType)
  updateTeam(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => Int) id: number,
    @Arg('input', () => UpdateTeamInput) input: UpdateTeamInput,
  ): Promise<TeamRecord> {
    requireOperator(ctx.viewer);
    return accounts.updateTeam(ctx.em, id, input);
  }

  @Mutation(() => UserType)
  createUser(
    @Ctx() ctx: RequestContext,
    @Arg('input', () => CreateUserInput) input: CreateUserInput,
  ): Promise<UserView> {
    requireOperator(ctx.viewer);
    return accounts.createUser(ctx.em, input);
  }

  @Mutation(() => MembershipType)
  addMembership(
    @Ctx() ctx: RequestContext,
    @Arg('input', () => AddMembershipInput) input: AddMembershipInput,
  ): Promise<MembershipView> {
    requireOperator(ctx.viewer);
    return accounts.addMembership(ctx.em, input);
  }

  @Mutation(() => Boolean, {
    description:
      'Removes a user from a team and revokes every token acting as them there (personal MCP tokens, connector tokens and their refresh tokens): they stop working at once, and adding the user back revives none',
  })
  removeMembership(
    @Ctx() ctx: RequestContext,
    @Arg('teamId', () => Int) teamId: number,
    @Arg('userId', () => Int) userId: number,
  ): Promise<boolean> {
    requireOperator(ctx.viewer);
    return accounts.removeMembership(ctx.em, teamId, userId, ctx.deps.clock());
  }
}
