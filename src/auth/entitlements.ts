import { AppError } from '../errors/catalogue.js';
import type { FusionScope, Plan } from '../entities/enums.js';
import type { Viewer } from './viewer.js';

/**
 * Named requirements, checked as the first statement of each operation that needs them. The plan
 * is read from the viewer, which is loaded from the database on every request, so a downgrade
 * takes effect on the next call even though a key still holds its scopes.
 */
export const FUSION_PLANS: readonly Plan[] = ['pro', 'elite'];
export const DOCUMENT_INTELLIGENCE_PLANS: readonly Plan[] = ['pro', 'elite'];

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

export function requireFusionPlan(viewer: Viewer, scope: FusionScope): void {
  const plan = effectivePlan(viewer);
  if (!FUSION_PLANS.includes(plan)) {
    throw new AppError(
      'PLAN_UPGRADE_REQUIRED',
      `The '${scope}' scope requires a Pro or Elite plan; this team is on ${plan}`,
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

export function requireDocumentIntelligence(viewer: Viewer | null): DocumentIntelligenceAccess {
  const v = requireViewer(viewer);
  const plan = effectivePlan(v);
  if (!DOCUMENT_INTELLIGENCE_PLANS.includes(plan)) {
    throw new AppError(
      'PLAN_UPGRADE_REQUIRED',
      `Document Intelligence is not available on the ${plan} plan: it requires a Pro plan (latest documents) or an Elite plan (latest and historical documents)`,
      { requiredPlans: [...DOCUMENT_INTELLIGENCE_PLANS] },
    );
  }
  return { historical: plan === 'elite' };
}

/** Team owners and admins manage their own team's keys and tokens; the operator manages all. */
export function requireTeamAdmin(viewer: Viewer | null, teamId: number): Viewer {
  const v = requireViewer(viewer);
  if (v.isOperator) return v;
  if (v.team?.id === teamId && v.user && (v.role === 'owner' || v.role === 'admin')) return v;
  throw new AppError('FORBIDDEN', 'Only an owner or admin of this team may manage its keys and tokens');
}
