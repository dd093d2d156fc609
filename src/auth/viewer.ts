import type { AgentTier, Plan, Role, SubscriptionStatus } from '../enums.js';

export type CredentialKind = 'api-key' | 'personal-token' | 'oauth-token' | 'operator' | 'session';

export interface TeamView {
  id: number;
  name: string;
  plan: Plan;
  agentTier: AgentTier;
  subscriptionStatus: SubscriptionStatus;
  /** When the subscription became past_due (its grace period runs from here); null otherwise. */
  pastDueSince: Date | null;
}

export interface UserView {
  id: number;
  email: string;
  name: string;
}

/** Who is calling, resolved afresh from the database on every request. */
export interface Viewer {
  credential: {
    kind: CredentialKind;
    /** Row id of the key or token; null for the operator and sessions. */
    id: number | null;
    /** Stable, non-secret identity used as the rate-limit key. */
    rateKey: string;
    /** OAuth tokens are bound to one resource (RFC 8707). */
    resource: string | null;
  };
  team: TeamView | null;
  user: UserView | null;
  /** The user's role in `team`, when a user is acting. */
  role: Role | null;
  scopes: readonly string[];
  isOperator: boolean;
}

export function operatorViewer(): Viewer {
  return {
    credential: { kind: 'operator', id: null, rateKey: 'operator', resource: null },
    team: null,
    user: null,
    role: null,
    scopes: ['building-links', 'floorplan-match', 'changes'],
    isOperator: true,
  };
}
