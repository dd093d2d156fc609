import {
  type Evidence,
  factsOf,
  inSchedule,
  type ListingFacts,
  planEvidence,
  readListing,
  scheduleSignal,
  WEIGHTED_SIGNALS,
} from './floorplan-signals.js';
import type {
  CandidatePlan,
  ListingInput,
  ListingMatchResult,
  MatchSignal,
  MatchThresholds,
  ScoredPlan,
  SignalName,
} from './floorplan-match.types.js';

export type * from './floorplan-match.types.js';

export const DEFAULT_THRESHOLDS: Readonly<MatchThresholds> = Object.freeze({
  matchScore: 0.8,
  minLead: 0.1,
  sqftTolerancePct: 5,
  maxCandidates: 5,
});

/**
 * How much each signal counts. Bedrooms, area and the suite's stack each nearly identify a plan in
 * a building; bathrooms and the floor narrow it; dens and exposure mostly break ties.
 */
export const SIGNAL_WEIGHTS: Readonly<Record<Exclude<SignalName, 'unit_schedule'>, number>> = Object.freeze({
  stack: 3,
  floor_range: 2,
  bedrooms: 3,
  dens: 1,
  bathrooms: 2,
  interior_sqft: 3,
  exposure: 1,
});

/**
 * Below this much listing evidence (by weight) nothing is `matched`: bedrooms alone, or an area
 * alone, fit too many plans. A suite number alone (stack + floor) is enough, as is bedrooms with
 * an area or with bathrooms.
 */
export const MIN_EVIDENCE_WEIGHT = 5;

const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

interface Judged {
  plan: CandidatePlan;
  /** The listing's unit number is in this plan's unit schedule. */
  hit: boolean;
  score: number;
  /** Weight of the signals the listing gave a value for. */
  evidence: number;
}

/** The weights in the order of `WEIGHTED_SIGNALS`. */
const WEIGHTS: readonly number[] = WEIGHTED_SIGNALS.map((s) => SIGNAL_WEIGHTS[s]);

/** The weight of the `i`th weighted signal: 0 for a field the listing does not give. */
const weightOf = (e: Evidence, i: number) => (e.weightless ? 0 : WEIGHTS[i]);

/** The evidence of the plan being judged: judging is synchronous, so one array serves every plan. */
const judging: Evidence[] = new Array<Evidence>(WEIGHTED_SIGNALS.length);

function judge(listing: ListingInput, facts: ListingFacts, plan: CandidatePlan, t: MatchThresholds): Judged {
  const planFacts = factsOf(plan);
  const hit = inSchedule(facts, plan, planFacts);
  const evidence = planEvidence(listing, facts, plan, t.sqftTolerancePct, judging, planFacts);
  let weighted = 0;
  let total = 0;
  for (let i = 0; i < evidence.length; i++) {
    const e = evidence[i];
    const weight = weightOf(e, i);
    weighted += weight * e.score;
    total += weight;
  }
  // A schedule is the developer's own unit-to-plan table: a hit settles the match.
  const score = hit ? 1 : total > 0 ? round4(weighted / total) : 0;
  return { plan, hit, score, evidence: total };
}

/** How each signal scored for the plan whose signals are reported (only that one, so only here). */
function reportedSignals(
  listing: ListingInput,
  facts: ListingFacts,
  plan: CandidatePlan,
  t: MatchThresholds,
): MatchSignal[] {
  const context = { listing, facts, plan, sqftTolerancePct: t.sqftTolerancePct };
  const evidence = planEvidence(listing, facts, plan, t.sqftTolerancePct, judging);
  const signals: MatchSignal[] = [scheduleSignal(listing, facts, plan)];
  for (let i = 0; i < evidence.length; i++) {
    const e = evidence[i];
    signals.push({
      signal: WEIGHTED_SIGNALS[i],
      weight: weightOf(e, i),
      result: e.result,
      score: round4(e.score),
      detail: e.detail(context),
    });
  }
  return signals;
}

/** Best first: a schedule hit, then the score, then the lower plan id (so the order is total). */
const before = (a: Judged, b: Judged) =>
  a.hit !== b.hit ? a.hit : a.score !== b.score ? a.score > b.score : a.plan.id < b.plan.id;

/**
 * Sorts a building's judged plans (a handful to a few dozen) by `before`, in place. An insertion
 * sort in plain JavaScript: Array#sort calls its comparator across the builtin boundary, which
 * was a tenth of the matcher's time at a building's size.
 */
function rank(judged: Judged[]): Judged[] {
  for (let i = 1; i < judged.length; i++) {
    const j = judged[i];
    let k = i - 1;
    while (k >= 0 && before(j, judged[k])) {
      judged[k + 1] = judged[k];
      k--;
    }
    judged[k + 1] = j;
  }
  return judged;
}

const scored = (j: Judged): ScoredPlan => ({ floorPlanId: j.plan.id, name: j.plan.name, score: j.score });

/** A plan is a candidate unless it belongs to a different building or project than the listing names. */
function inScope(listing: ListingInput, plan: CandidatePlan): boolean {
  if (listing.buildingId && plan.buildingId && plan.buildingId !== listing.buildingId) return false;
  if (listing.projectId && plan.projectId !== listing.projectId) return false;
  return true;
}

/**
 * The plans in the listing's scope: `plans` itself when all are (the caller passes the listing's
 * own building's or project's plans, so they nearly always are), else a filtered copy.
 */
function inScopeOf(listing: ListingInput, plans: CandidatePlan[]): CandidatePlan[] {
  for (let i = 0; i < plans.length; i++) {
    if (!inScope(listing, plans[i])) return plans.filter((p) => inScope(listing, p));
  }
  return plans;
}

/** A listing's result, every one made here so all have one shape. */
const answer = (
  listing: ListingInput,
  status: ListingMatchResult['status'],
  candidates: ScoredPlan[],
  signals: MatchSignal[],
  bestMatch: ListingMatchResult['bestMatch'],
  message: string | null,
): ListingMatchResult => ({ ref: listing.ref, status, bestMatch, candidates, signals, message });

/** A listing matched to nothing, for a reason of its own (no plans, too little information). */
const failed = (listing: ListingInput, message: string) => answer(listing, 'no_match', [], [], null, message);

const TOO_LITTLE =
  'too little information to match: give a unit number, or bedrooms with an interior area or bathrooms';

export function matchListing(
  listing: ListingInput,
  plans: CandidatePlan[],
  thresholds: MatchThresholds = DEFAULT_THRESHOLDS,
): ListingMatchResult {
  const candidates = inScopeOf(listing, plans);
  if (!candidates.length) {
    return failed(listing, 'no floor plans are known for this building or project');
  }
  const facts = readListing(listing, candidates);
  const judged = new Array<Judged>(candidates.length);
  let hits = 0;
  for (let i = 0; i < candidates.length; i++) {
    const j = judge(listing, facts, candidates[i], thresholds);
    if (j.hit) hits++;
    judged[i] = j;
  }
  const ranked = rank(judged);
  const best = ranked[0];
  if (!hits && best.evidence === 0) return failed(listing, TOO_LITTLE);

  const size = Math.min(ranked.length, Math.max(1, thresholds.maxCandidates));
  const signals = reportedSignals(listing, facts, best.plan, thresholds);
  if (hits > 1) {
    const message = 'the unit number appears in the unit schedules of several floor plans';
    const tied: ScoredPlan[] = [];
    for (let i = 0; i < ranked.length && tied.length < size; i++)
      if (ranked[i].hit) tied.push(scored(ranked[i]));
    return answer(listing, 'ambiguous', tied, signals, null, message);
  }
  const top = new Array<ScoredPlan>(size);
  for (let i = 0; i < size; i++) top[i] = scored(ranked[i]);
  const lead = round4(best.score - (ranked.length > 1 ? ranked[1].score : 0));
  const clears = best.score >= thresholds.matchScore;
  const enough = best.evidence >= MIN_EVIDENCE_WEIGHT;
  // A schedule hit settles it; otherwise the best plan must score high enough, lead the runner-up
  // and rest on enough of the listing's evidence.
  if (hits === 1 || (clears && lead >= thresholds.minLead && enough)) {
    const bestMatch = { floorPlanId: best.plan.id, name: best.plan.name, score: best.score, plan: best.plan };
    return answer(listing, 'matched', top, signals, bestMatch, null);
  }
  return answer(listing, clears ? 'ambiguous' : 'no_match', top, signals, null, enough ? null : TOO_LITTLE);
}
