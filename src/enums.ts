/** Value sets shared by entities, GraphQL enums and validators. The spec's exact words. */
export const PLANS = ['sandbox', 'essential', 'pro', 'elite'] as const;
export type Plan = (typeof PLANS)[number];

export const AGENT_TIERS = ['none', 'agent', 'enterprise'] as const;
export type AgentTier = (typeof AGENT_TIERS)[number];

/**
 * The billing provider's subscription states. Only `active`, `trialing` and `past_due` within its
 * grace period are in good standing (see auth/entitlements.ts).
 */
export const SUBSCRIPTION_STATUSES = ['active', 'trialing', 'past_due', 'unpaid', 'canceled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export const ROLES = ['owner', 'admin', 'member'] as const;
export type Role = (typeof ROLES)[number];

export const FUSION_SCOPES = ['building-links', 'floorplan-match', 'changes'] as const;
export type FusionScope = (typeof FUSION_SCOPES)[number];

export const CATEGORIES = [
  'incentives',
  'features-finishes',
  'brochure',
  'hot-list',
  'price-list',
  'deposit-structure',
  'fact-sheet',
  'other',
] as const;
export type Category = (typeof CATEGORIES)[number];

export const EXTRACTION_STATUSES = ['pending', 'processing', 'completed', 'no_text', 'failed'] as const;

export const TOKEN_KINDS = ['personal', 'oauth'] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];

export const CONSTRUCTION_STATUSES = ['pre-construction', 'under-construction', 'completed'] as const;
export const SALES_STATUSES = ['coming-soon', 'selling', 'sold-out'] as const;
