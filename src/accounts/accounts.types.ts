import { Field, Int, InputType, ObjectType } from 'type-graphql';
import type { UserView } from '../auth/viewer.js';
import type { TeamRecord } from './accounts.service.js';
import type { AgentTier, Plan, Role, SubscriptionStatus } from '../enums.js';
import { PAST_DUE_GRACE_DAYS } from '../auth/entitlements.js';
import { AgentTierEnum, PlanEnum, RoleEnum, SubscriptionStatusEnum } from '../graphql/enums.js';

@ObjectType('Team')
export class TeamType implements TeamRecord {
  @Field(() => Int) id!: number;
  @Field() name!: string;
  @Field(() => PlanEnum) plan!: Plan;
  @Field(() => AgentTierEnum) agentTier!: AgentTier;
  @Field(() => SubscriptionStatusEnum) subscriptionStatus!: SubscriptionStatus;
  @Field(() => Date, {
    nullable: true,
    description: `When the subscription became past_due; null in any other status. The plan keeps working for ${PAST_DUE_GRACE_DAYS} days from then`,
  })
  pastDueSince!: Date | null;
  @Field(() => Date) createdAt!: Date;
}

@ObjectType('User')
export class UserType implements UserView {
  @Field(() => Int) id!: number;
  @Field() email!: string;
  @Field() name!: string;
}

@ObjectType('Membership')
export class MembershipType {
  @Field(() => Int) id!: number;
  @Field(() => RoleEnum) role!: Role;
  @Field(() => TeamType) team!: object;
  @Field(() => UserType) user!: object;
}

@ObjectType('Viewer', { description: 'Who is calling, and what the credential allows' })
export class ViewerType {
  @Field({ description: 'api-key, personal-token, oauth-token, operator or session' })
  credentialKind!: string;
  @Field(() => TeamType, { nullable: true }) team!: object | null;
  @Field(() => UserType, { nullable: true }) user!: object | null;
  @Field(() => RoleEnum, { nullable: true }) role!: Role | null;
  @Field(() => [String]) scopes!: string[];
  @Field() isOperator!: boolean;
}

@InputType()
export class CreateTeamInput {
  @Field() name!: string;
  @Field(() => PlanEnum) plan!: Plan;
  @Field(() => AgentTierEnum, { nullable: true }) agentTier?: AgentTier | null;
  @Field(() => SubscriptionStatusEnum, { nullable: true }) subscriptionStatus?: SubscriptionStatus | null;
  @Field(() => Date, {
    nullable: true,
    description: 'When a past_due subscription fell due (default: now, or the date already recorded)',
  })
  pastDueSince?: Date | null;
}

@InputType()
export class UpdateTeamInput {
  @Field(() => String, { nullable: true }) name?: string | null;
  @Field(() => PlanEnum, { nullable: true }) plan?: Plan | null;
  @Field(() => AgentTierEnum, { nullable: true }) agentTier?: AgentTier | null;
  @Field(() => SubscriptionStatusEnum, { nullable: true }) subscriptionStatus?: SubscriptionStatus | null;
  @Field(() => Date, {
    nullable: true,
    description: 'When a past_due subscription fell due (default: now, or the date already recorded)',
  })
  pastDueSince?: Date | null;
}

@InputType()
export class CreateUserInput {
  @Field() email!: string;
  @Field() name!: string;
  @Field() password!: string;
}

@InputType()
export class AddMembershipInput {
  @Field(() => Int) teamId!: number;
  @Field(() => Int) userId!: number;
  @Field(() => RoleEnum) role!: Role;
}
