import type { FloorPlanView } from '../catalogue/catalogue.service.js';

/** One listing to place on a floor plan, as the Floor Plan Match API receives it (camel-cased). */
export interface ListingInput {
  ref: string;
  buildingId?: number | null;
  projectId?: number | null;
  address?: string | null;
  unitNumber?: string | null;
  floor?: number | null;
  bedrooms?: number | null;
  dens?: number | null;
  bathrooms?: number | null;
  /** An exact area, or a `[min, max]` range when the listing only gives a bracket such as 800-899. */
  interiorSqft?: number | [number, number] | null;
  exposure?: string | null;
}

/** A floor plan the caller loaded for the listing's building or project: the catalogue's view of it. */
export type CandidatePlan = FloorPlanView;

export type SignalName =
  | 'unit_schedule'
  | 'stack'
  | 'floor_range'
  | 'bedrooms'
  | 'dens'
  | 'bathrooms'
  | 'interior_sqft'
  | 'exposure';

/**
 * One piece of evidence for or against a plan. The plan's score is `Σ weight·score / Σ weight`
 * over its signals, so a client can recompute it: a field the listing does not give has weight 0;
 * a field the plan has no data for keeps its weight with a neutral score. The exception is a
 * `unit_schedule` match, which scores the plan 1 outright.
 */
export interface MatchSignal {
  signal: SignalName;
  result: 'match' | 'partial' | 'mismatch' | 'missing';
  weight: number;
  score: number;
  detail: string;
}

export interface ScoredPlan {
  floorPlanId: number;
  name: string;
  /** 0..1, rounded to 4 decimals. */
  score: number;
}

export interface ListingMatchResult {
  ref: string;
  status: 'matched' | 'ambiguous' | 'no_match';
  /** Set only when `status` is `matched`: an ambiguous or failed match names no winner. */
  bestMatch: (ScoredPlan & { plan: CandidatePlan }) | null;
  /** The top candidates, best first (score, then plan id). */
  candidates: ScoredPlan[];
  /** The evidence for `candidates[0]`. */
  signals: MatchSignal[];
  /** A problem with this listing's data (too little information, no plans to compare, conflicting schedules). */
  message: string | null;
}

export interface MatchThresholds {
  /** A best score at or above this can be a match. */
  matchScore: number;
  /** ...if it leads the runner-up by at least this much. */
  minLead: number;
  /** An area within this percentage of the plan's area counts as a full match. */
  sqftTolerancePct: number;
  maxCandidates: number;
}
