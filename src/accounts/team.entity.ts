import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { AGENT_TIERS, PLANS, ROLES, SUBSCRIPTION_STATUSES } from '../enums.js';

export const TeamSchema = defineEntity({
  name: 'Team',
  properties: {
    id: p.integer().primary(),
    name: p.string().length(200),
    plan: p.enum(PLANS),
    agentTier: p.enum(AGENT_TIERS).default('none'),
    subscriptionStatus: p.enum(SUBSCRIPTION_STATUSES).default('active'),
    /** When the subscription last became past_due: the grace period runs from here. */
    pastDueSince: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
/** @public the entity type, beside each schema */
export type Team = InferEntity<typeof TeamSchema>;

export const UserSchema = defineEntity({
  name: 'User',
  tableName: 'app_user',
  properties: {
    id: p.integer().primary(),
    email: p.string().length(320).unique(),
    name: p.string().length(200),
    passwordHash: p.string().length(300).hidden().lazy(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
/** @public the entity type, beside each schema */
export type User = InferEntity<typeof UserSchema>;

export const MembershipSchema = defineEntity({
  name: 'Membership',
  uniques: [{ properties: ['team', 'user'] }],
  properties: {
    id: p.integer().primary(),
    team: () => p.manyToOne(TeamSchema).deleteRule('cascade'),
    user: () => p.manyToOne(UserSchema).deleteRule('cascade'),
    role: p.enum(ROLES),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
/** @public the entity type, beside each schema */
export type Membership = InferEntity<typeof MembershipSchema>;
