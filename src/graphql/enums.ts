import { registerEnumType } from 'type-graphql';
import { AGENT_TIERS, PLANS, ROLES, SUBSCRIPTION_STATUSES, TOKEN_KINDS } from '../enums.js';

function asEnum<T extends string>(values: readonly T[]): Record<T, T> {
  return Object.fromEntries(values.map((v) => [v, v])) as Record<T, T>;
}

/** GraphQL enum values are the lowercase words the spec and the operator contract use (`plan: pro`). */
export const PlanEnum = asEnum(PLANS);
export const AgentTierEnum = asEnum(AGENT_TIERS);
export const SubscriptionStatusEnum = asEnum(SUBSCRIPTION_STATUSES);
export const RoleEnum = asEnum(ROLES);
export const TokenKindEnum = asEnum(TOKEN_KINDS);

registerEnumType(PlanEnum, { name: 'Plan', description: 'Subscription plan of a team' });
registerEnumType(AgentTierEnum, {
  name: 'AgentTier',
  description: 'AI-agent subscription tier (the OAuth connector needs agent or enterprise)',
});
registerEnumType(SubscriptionStatusEnum, { name: 'SubscriptionStatus' });
registerEnumType(RoleEnum, { name: 'Role', description: 'Role of a user in a team' });
registerEnumType(TokenKindEnum, {
  name: 'TokenKind',
  description: 'personal: made in the API settings; oauth: issued to a connector',
});
