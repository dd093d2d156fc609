import type { EntityManager } from '@mikro-orm/postgresql';
import type { TeamView } from '../auth/viewer.js';
import { MembershipSchema } from '../entities/index.js';

/**
 * The connector needs an active Agent or Enterprise subscription (DESIGN §3). The one context
 * applies the same rule to every request made with a connector token; here it gates consent and
 * token issue.
 */
export function isConnectorEligible(team: Pick<TeamView, 'agentTier' | 'subscriptionStatus'>): boolean {
  return team.agentTier !== 'none' && team.subscriptionStatus === 'active';
}

/** Why a grant can no longer produce tokens, or null when the user and team still qualify. */
export async function grantObstacle(
  em: EntityManager,
  userId: number,
  teamId: number,
): Promise<string | null> {
  const membership = await em.findOne(
    MembershipSchema,
    { user: userId, team: teamId },
    { populate: ['team'] },
  );
  if (!membership) return 'the user is no longer a member of the team';
  if (!isConnectorEligible(membership.team)) {
    return 'the team no longer has an active Agent or Enterprise subscription';
  }
  return null;
}
