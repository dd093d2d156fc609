import type { EntityManager } from '@mikro-orm/postgresql';
import { hashPassword, verifyPassword } from '../auth/password.js';
import type { TeamView, UserView } from '../auth/viewer.js';
import type { Role } from '../enums.js';
import { MembershipSchema, UserSchema } from '../accounts/team.entity.js';

export interface TeamMembership {
  team: TeamView;
  role: Role;
}

const MAX_PASSWORD_LENGTH = 1024;
let decoyHash: Promise<string> | null = null;

/**
 * Email + password check. An unknown email still costs one scrypt verification against a decoy
 * hash, so response time does not reveal which addresses have accounts.
 */
export async function verifyCredentials(
  em: EntityManager,
  email: string,
  password: string,
): Promise<UserView | null> {
  const normalized = email.trim().toLowerCase();
  if (
    !normalized ||
    normalized.length > 320 ||
    normalized.includes('\0') ||
    password.length > MAX_PASSWORD_LENGTH
  ) {
    return null;
  }
  const user = await em.findOne(UserSchema, { email: normalized }, { populate: ['passwordHash'] });
  if (!user) {
    decoyHash ??= hashPassword('decoy password that never matches');
    await verifyPassword(password, await decoyHash);
    return null;
  }
  if (!(await verifyPassword(password, user.passwordHash))) return null;
  return { id: user.id, email: user.email, name: user.name };
}

/** The user's teams with their role, read afresh (plan, tier and status included). */
export async function membershipsOf(em: EntityManager, userId: number): Promise<TeamMembership[]> {
  const rows = await em.find(
    MembershipSchema,
    { user: userId },
    { populate: ['team'], orderBy: { team: { name: 'asc' } } },
  );
  return rows.map((m) => ({
    role: m.role,
    team: {
      id: m.team.id,
      name: m.team.name,
      plan: m.team.plan,
      agentTier: m.team.agentTier,
      subscriptionStatus: m.team.subscriptionStatus,
      pastDueSince: m.team.pastDueSince ?? null,
    },
  }));
}

/** The team's members' emails by user id (to say whose a token or connection is). */
export async function memberEmails(em: EntityManager, teamId: number): Promise<Map<number, string>> {
  const rows = await em.find(MembershipSchema, { team: teamId }, { populate: ['user'] });
  return new Map(rows.map((m) => [m.user.id, m.user.email]));
}
