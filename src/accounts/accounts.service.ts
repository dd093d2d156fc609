import type { EntityManager } from '@mikro-orm/postgresql';
import { hashPassword } from '../auth/password.js';
import type { TeamView, UserView } from '../auth/viewer.js';
import {
  AGENT_TIERS,
  PLANS,
  ROLES,
  SUBSCRIPTION_STATUSES,
  type AgentTier,
  type Plan,
  type Role,
  type SubscriptionStatus,
} from '../enums.js';
import { AccessTokenSchema } from '../credentials/credential.entity.js';
import { OAuthRefreshTokenSchema } from '../oauth/oauth.entity.js';
import { MembershipSchema, TeamSchema, UserSchema, type Team, type User } from './team.entity.js';
import { badInput } from '../errors/catalogue.js';
import { optionalOneOf, parseId, requireOneOf, requireText } from '../errors/validate.js';

/**
 * Teams, users and memberships (the operator's account administration). Every function validates
 * all of its input before it writes anything, and returns plain views.
 */

/** A team as the operator sees it: what the context knows, and when it was created. */
export interface TeamRecord extends TeamView {
  createdAt: Date;
}

export interface MembershipView {
  id: number;
  role: Role;
  team: TeamRecord;
  user: UserView;
}

export function teamRecord(t: Team): TeamRecord {
  return {
    id: t.id,
    name: t.name,
    plan: t.plan,
    agentTier: t.agentTier,
    subscriptionStatus: t.subscriptionStatus,
    pastDueSince: t.pastDueSince ?? null,
    createdAt: t.createdAt,
  };
}

export function userView(u: User): UserView {
  return { id: u.id, email: u.email, name: u.name };
}

/** The team with this id (an entity, for the services that write beside it), or BAD_USER_INPUT on `field`. */
export async function findTeam(em: EntityManager, field: string, id: number): Promise<Team> {
  const team = await em.findOne(TeamSchema, { id: parseId(field, id) });
  if (!team) throw badInput(field, `no team with id ${id}`);
  return team;
}

/** The user with this id, or BAD_USER_INPUT on `field`. */
export async function findUser(em: EntityManager, field: string, id: number): Promise<User> {
  const user = await em.findOne(UserSchema, { id: parseId(field, id) });
  if (!user) throw badInput(field, `no user with id ${id}`);
  return user;
}

export async function createTeam(
  em: EntityManager,
  input: {
    name: string;
    plan: unknown;
    agentTier?: unknown;
    subscriptionStatus?: unknown;
    pastDueSince?: Date | null;
  },
): Promise<TeamRecord> {
  const subscriptionStatus =
    optionalOneOf<SubscriptionStatus>(
      'subscriptionStatus',
      SUBSCRIPTION_STATUSES,
      input.subscriptionStatus,
    ) ?? 'active';
  const team = em.create(TeamSchema, {
    name: requireText('name', input.name),
    plan: requireOneOf<Plan>('plan', PLANS, input.plan),
    agentTier: optionalOneOf<AgentTier>('agentTier', AGENT_TIERS, input.agentTier) ?? 'none',
    subscriptionStatus,
    pastDueSince: pastDueSince(subscriptionStatus, null, input.pastDueSince),
  });
  await em.flush();
  return teamRecord(team);
}

export async function updateTeam(
  em: EntityManager,
  id: number,
  input: {
    name?: string | null;
    plan?: unknown;
    agentTier?: unknown;
    subscriptionStatus?: unknown;
    pastDueSince?: Date | null;
  },
): Promise<TeamRecord> {
  const team = await findTeam(em, 'id', id);
  const name = input.name === undefined || input.name === null ? null : requireText('name', input.name);
  const plan = optionalOneOf<Plan>('plan', PLANS, input.plan);
  const agentTier = optionalOneOf<AgentTier>('agentTier', AGENT_TIERS, input.agentTier);
  const status = optionalOneOf<SubscriptionStatus>(
    'subscriptionStatus',
    SUBSCRIPTION_STATUSES,
    input.subscriptionStatus,
  );
  if (name) team.name = name;
  if (plan) team.plan = plan;
  if (agentTier) team.agentTier = agentTier;
  if (status || input.pastDueSince) {
    const next = status ?? team.subscriptionStatus;
    team.pastDueSince = pastDueSince(
      next,
      team.subscriptionStatus === 'past_due' ? team.pastDueSince : null,
      input.pastDueSince,
    );
    team.subscriptionStatus = next;
  }
  await em.flush();
  return teamRecord(team);
}

/**
 * When a past_due subscription fell due: the billing system's date when it gives one, else the
 * date already recorded, else now. Any other status clears it, so a later lapse starts a new grace.
 */
function pastDueSince(
  status: SubscriptionStatus,
  recorded: Date | null | undefined,
  given: Date | null | undefined,
): Date | null {
  if (status !== 'past_due') {
    if (given) throw badInput('pastDueSince', 'applies only to a past_due subscription');
    return null;
  }
  if (given && (Number.isNaN(given.getTime()) || given.getTime() > Date.now()))
    throw badInput('pastDueSince', 'must be a valid date-time, not in the future');
  return given ?? recorded ?? new Date();
}

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function createUser(
  em: EntityManager,
  input: { email: string; name: string; password: string },
): Promise<UserView> {
  const email = requireText('email', input.email, 320).toLowerCase();
  if (!EMAIL_RE.test(email)) throw badInput('email', 'must be an email address');
  const name = requireText('name', input.name);
  if (typeof input.password !== 'string' || input.password.length < 8) {
    throw badInput('password', 'must be at least 8 characters');
  }
  if (input.password.length > 1024) throw badInput('password', 'must be at most 1024 characters');
  if (await em.count(UserSchema, { email })) throw badInput('email', 'is already registered');
  const user = em.create(UserSchema, { email, name, passwordHash: await hashPassword(input.password) });
  await em.flush();
  return userView(user);
}

export async function addMembership(
  em: EntityManager,
  input: { teamId: number; userId: number; role: unknown },
): Promise<MembershipView> {
  const role = requireOneOf<Role>('role', ROLES, input.role);
  const team = await findTeam(em, 'teamId', input.teamId);
  const user = await findUser(em, 'userId', input.userId);
  const existing = await em.findOne(MembershipSchema, { team, user });
  if (existing) {
    existing.role = role;
    await em.flush();
    return { id: existing.id, role, team: teamRecord(team), user: userView(user) };
  }
  const membership = em.create(MembershipSchema, { team, user, role });
  await em.flush();
  return { id: membership.id, role, team: teamRecord(team), user: userView(user) };
}

/**
 * Removes a member and, in the same transaction, revokes every token that acts as them in the team:
 * their personal MCP tokens, their connectors' access tokens and the refresh tokens behind those.
 * Revoked, not merely refused while they are out: adding the person back later revives nothing.
 */
export async function removeMembership(
  em: EntityManager,
  teamId: number,
  userId: number,
  now = new Date(),
): Promise<boolean> {
  const team = parseId('teamId', teamId);
  const user = parseId('userId', userId);
  return em.transactional(async (tx) => {
    const deleted = await tx.nativeDelete(MembershipSchema, { team, user });
    if (deleted === 0) return false;
    await tx.nativeUpdate(AccessTokenSchema, { team, user, revokedAt: null }, { revokedAt: now });
    await tx.nativeUpdate(OAuthRefreshTokenSchema, { team, user, revokedAt: null }, { revokedAt: now });
    return true;
  });
}
