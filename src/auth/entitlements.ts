import { AppError, type AppErrorDetails } from '../errors/catalogue.js';
import { planRefusals } from '../metrics/metrics.js';
import type { FusionScope, Plan } from '../enums.js';
import type { TeamView, Viewer } from './viewer.js';

/**
 * Named requirements, checked as the first statement of each operation that needs them. The plan
 * is read from the viewer, which is loaded from the database on every request, so a downgrade
 * takes effect on the next call even though a key still holds its scopes.
 */
export const FUSION_PLANS: readonly Plan[] = ['pro', 'elite'];
export const DOCUMENT_INTELLIGENCE_PLANS: readonly Plan[] = ['pro', 'elite'];

/**
 * A plan grants only while its subscription is in good standing: `active` or `trialing`, or
 * `past_due` for this many days from `pastDueSince` (time for a failed payment to be retried or
 * the card updated). After that, and in `unpaid` or `canceled`, the next request gets the plan error.
 */
export const PAST_DUE_GRACE_DAYS = 7;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Why the subscription does not grant its plan now, as words that follow "the subscription"; null when it does. */
export function standingProblem(
  team: Pick<TeamView, 'subscriptionStatus' | 'pastDueSince'>,
  now = new Date(),
): string | null {
  switch (team.subscriptionStatus) {
    case 'active':
    case 'trialing':
      return null;
    case 'past_due': {
      const since = team.pastDueSince ?? now;
      if (now.getTime() - since.getTime() <= PAST_DUE_GRACE_DAYS * DAY_MS) return null;
      return `is past_due since ${since.toISOString().slice(0, 10)}, beyond the ${PAST_DUE_GRACE_DAYS}-day grace period`;
    }
    case 'unpaid':
    case 'canceled':
      return `is ${team.subscriptionStatus}`;
  }
}

/** The operator acts with everything an Elite team holding every scope may do. */
export function effectivePlan(viewer: Viewer): Plan {
  if (viewer.isOperator) return 'elite';
  return viewer.team?.plan ?? 'sandbox';
}

export function requireViewer(viewer: Viewer | null): Viewer {
  if (!viewer)
    throw new AppError('CREDENTIAL_MISSING', 'Authentication required: send Authorization: Bearer <token>');
  return viewer;
}

export function requireOperator(viewer: Viewer | null): Viewer {
  const v = requireViewer(viewer);
  if (!v.isOperator) throw new AppError('FORBIDDEN', 'Only the operator may do this');
  return v;
}

export function requireScope(viewer: Viewer, scope: FusionScope): void {
  if (viewer.isOperator) return;
  if (!viewer.scopes.includes(scope)) {
    throw new AppError('SCOPE_MISSING', `The API key lacks the '${scope}' scope`, { scope });
  }
}

/** A plan refusal, counted by policy for /metrics (the Fusion scope, or document-intelligence). */
function planRefused(policy: string, message: string, details: AppErrorDetails): AppError {
  planRefusals.inc({ policy });
  return new AppError('PLAN_UPGRADE_REQUIRED', message, details);
}

export function requireFusionPlan(viewer: Viewer, scope: FusionScope): void {
  const plan = effectivePlan(viewer);
  if (!FUSION_PLANS.includes(plan)) {
    throw planRefused(scope, `The '${scope}' scope requires a Pro or Elite plan; this team is on ${plan}`, {
      scope,
      requiredPlans: [...FUSION_PLANS],
    });
  }
  const standing = viewer.team && standingProblem(viewer.team);
  if (standing) {
    throw planRefused(
      scope,
      `The '${scope}' scope requires a Pro or Elite subscription in good standing; this team's ${plan} subscription ${standing}`,
      { scope, requiredPlans: [...FUSION_PLANS] },
    );
  }
}

/** Scope then plan, in the spec's order: both must hold for a Fusion API call. */
export function requireFusionAccess(viewer: Viewer, scope: FusionScope): void {
  requireScope(viewer, scope);
  requireFusionPlan(viewer, scope);
}

export interface DocumentIntelligenceAccess {
  /** Older-revision documents may be searched (Elite only; ignored silently on Pro). */
  historical: boolean;
}

/**
 * Document Intelligence reads the documents' text: it needs a credential meant for it (an MCP
 * access token, a connector token, a signed-in member, the operator). An API key serves the Fusion
 * REST APIs only, whatever its scopes, so a key handed to an integration never reads the corpus.
 */
export function requireDocumentIntelligence(viewer: Viewer | null): DocumentIntelligenceAccess {
  const v = requireViewer(viewer);
  if (v.credential.kind === 'api-key') {
    throw new AppError(
      'FORBIDDEN',
      'Document Intelligence needs an MCP access token, a connector token or a signed-in member: API keys serve the Fusion REST APIs only',
    );
  }
  const plan = effectivePlan(v);
  if (!DOCUMENT_INTELLIGENCE_PLANS.includes(plan)) {
    throw planRefused(
      'document-intelligence',
      `Document Intelligence is not available on the ${plan} plan: it requires a Pro plan (latest documents) or an Elite plan (latest and historical documents)`,
      { requiredPlans: [...DOCUMENT_INTELLIGENCE_PLANS] },
    );
  }
  const standing = v.team && standingProblem(v.team);
  if (standing) {
    throw planRefused(
      'document-intelligence',
      `Document Intelligence requires a Pro or Elite subscription in good standing: this team's ${plan} subscription ${standing}`,
      { requiredPlans: [...DOCUMENT_INTELLIGENCE_PLANS] },
    );
  }
  return { historical: plan === 'elite' };
}

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
