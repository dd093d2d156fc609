import type { EntityManager } from '@mikro-orm/postgresql';
import { connectorObstacle } from '../auth/entitlements.js';
import { MembershipSchema } from '../accounts/team.entity.js';

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
