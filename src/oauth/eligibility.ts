import type { EntityManager } from '@mikro-orm/postgresql';
import type { TeamView } from '../auth/viewer.js';
import { standingProblem } from '../auth/entitlements.js';
import { MembershipSchema } from '../entities/index.js';

type ConnectorTeam = Pick<TeamView, 'agentTier' | 'subscriptionStatus' | 'pastDueSince'>;

/**
 * The connector needs an Agent or Enterprise subscription in good standing (DESIGN §3). The one
 * context applies the same rule to every request made with a connector token; here it gates
 * consent and token issue.
 */
export function isConnectorEligible(team: ConnectorTeam, now = new Date()): boolean {
  return connectorObstacle(team, now) === null;
}

/** Why the team cannot use the connector, or null when it can. */
export function connectorObstacle(team: ConnectorTeam, now = new Date()): string | null {
  if (team.agentTier === 'none') return 'the team needs an Agent or Enterprise subscription';
  const standing = standingProblem(team, now);
  return standing ? `the team's Agent or Enterprise subscription ${standing}` : null;
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
  const obstacle = connectorObstacle({
    ...membership.team,
    pastDueSince: membership.team.pastDueSince ?? null,
  });
  if (obstacle) return obstacle;
  return null;
}
