import { closestExposure, parseExposure } from './exposure.js';
import { canonicalUnit, readSuite, stackKey } from './suite-number.js';
import type { CandidatePlan, ListingInput, MatchSignal, SignalName } from './floorplan-match.types.js';

// Each signal compares one thing the listing says with one thing the plan records. A field the
// listing leaves out is `missing` and weightless; a field the plan has no data for is `missing`
// with a neutral score, so sparse plan data neither wins nor loses a match by itself.

/** The plan has no data for a signal the listing gives: neither for nor against it. */
const UNKNOWN_SCORE = 0.5;

/** What a signal's detail is written from, for the one plan whose signals are reported. */
export interface SignalContext {
  listing: ListingInput;
  facts: ListingFacts;
  plan: CandidatePlan;
  sqftTolerancePct: number;
}

/**
 * A signal before weighting; `weightless` marks a field the listing does not give (out of the
 * denominator). Its detail is written only for the plan whose signals are reported, from that
 * plan's `SignalContext`: a listing is judged against every plan of its building, and most
 * verdicts are shared constants, so judging a plan allocates next to nothing. Every verdict is
 * made by `verdict`, so all have one shape and the judge reads them without polymorphic loads.
 */
export type Evidence = Readonly<
  Omit<MatchSignal, 'signal' | 'weight' | 'detail'> & {
    detail: (c: SignalContext) => string;
    weightless: boolean;
  }
>;

// Readonly by type, not frozen: an area inside the tolerance makes a verdict for each plan judged,
// and freezing each made it cost about four times as much.
const verdict = (
  result: Evidence['result'],
  score: number,
  detail: Evidence['detail'],
  weightless = false,
): Evidence => ({ result, score, detail, weightless });

const missingFromListing = (field: string): Evidence =>
  verdict('missing', 0, () => `listing gives no ${field}`, true);
const unknownForPlan = (field: string): Evidence =>
  verdict('missing', UNKNOWN_SCORE, () => `plan has no ${field} on record; counted as neutral`);

// The answers that do not depend on the plan, made once.
const NO_STACK = missingFromListing('suite number with a stack');
const NO_FLOOR = missingFromListing('floor');
const NO_BEDROOMS = missingFromListing('bedrooms');
const NO_DENS = missingFromListing('dens');
const NO_BATHROOMS = missingFromListing('bathrooms');
const NO_AREA = missingFromListing('interior area');
const NO_EXPOSURE = missingFromListing('exposure');
const PLAN_NO_STACKS = unknownForPlan('stacks');
const PLAN_NO_FLOORS = unknownForPlan('floor range');
const PLAN_NO_AREA = unknownForPlan('interior area');
const PLAN_NO_EXPOSURE = unknownForPlan('exposure');

const finite = (n: number | null | undefined): n is number => typeof n === 'number' && Number.isFinite(n);

/** What the listing says once, parsed, so every plan is judged against the same reading. */
export interface ListingFacts {
  unitKey: string | null;
  stack: string | null;
  /** The stack as compared (`stackKey`), and its digits when they are all digits (a split suite's letter dropped). */
  stackKey: string | null;
  stackDigits: string | null;
  floor: number | null;
  penthouse: boolean;
  sqft: [number, number] | null;
  exposure: ReturnType<typeof parseExposure>;
  /** What the exposure signal says when the listing's exposure is missing or unreadable. */
  noExposure: Evidence;
  /** The highest floor any candidate plan reaches: where a penthouse suite sits. */
  topFloor: number | null;
}

export function readListing(listing: ListingInput, plans: CandidatePlan[]): ListingFacts {
  const suite = listing.unitNumber ? readSuite(listing.unitNumber) : null;
  const sqft = listing.interiorSqft;
  let range: [number, number] | null = null;
  if (Array.isArray(sqft)) {
    if (finite(sqft[0]) && finite(sqft[1])) range = [Math.min(...sqft), Math.max(...sqft)];
  } else if (finite(sqft)) {
    range = [sqft, sqft];
  }
  let topFloor: number | null = null;
  for (let i = 0; i < plans.length; i++) {
    const top = plans[i].floorMax;
    if (finite(top) && (topFloor === null || top > topFloor)) topFloor = top;
  }
  const exposure = listing.exposure ? parseExposure(listing.exposure) : null;
  const key = suite?.key ?? null;
  const digits = key === null ? null : stackDigits(key);
  return {
    unitKey: suite && listing.unitNumber?.trim() ? suite.canonical : null,
    stack: suite?.stack ?? null,
    stackKey: key,
    stackDigits: digits !== null && /^\d+$/.test(digits) ? digits : null,
    // An explicit floor beats one read from the suite number (some buildings skip floor 13).
    floor: finite(listing.floor) ? listing.floor : (suite?.floor ?? null),
    penthouse: !finite(listing.floor) && (suite?.penthouse ?? false),
    sqft: range,
    exposure,
    // Read only when the exposure is missing or unreadable: made only then.
    noExposure:
      listing.exposure && !exposure
        ? missingFromListing(`readable exposure ("${listing.exposure}")`)
        : NO_EXPOSURE,
    topFloor,
  };
}

/** A stack key without a split suite's letter ("04A" → "4" once keyed). */
const stackDigits = (key: string) => key.replace(/[A-Z]$/, '');

/**
 * What the matcher reads from a plan, parsed once per plan: plans are shared by every request of
 * a catalogue generation (src/fusion), and each is judged against every listing of its building.
 */
export interface PlanFacts {
  stackKeys: readonly string[];
  stackDigits: readonly string[];
  schedule: ReadonlySet<string>;
  exposure: ReturnType<typeof parseExposure>;
  penthouse: boolean;
}

const PENTHOUSE_PLAN = /\b(?:[LU]?PH|penthouse)\b/i;

const planFacts = new WeakMap<CandidatePlan, PlanFacts>();

export function factsOf(plan: CandidatePlan): PlanFacts {
  let facts = planFacts.get(plan);
  if (!facts) {
    const keys = plan.stacks.map(stackKey);
    facts = {
      stackKeys: keys,
      stackDigits: keys.map(stackDigits),
      schedule: new Set(plan.unitNumbers.map(canonicalUnit)),
      exposure: plan.exposure ? parseExposure(plan.exposure) : null,
      penthouse: PENTHOUSE_PLAN.test(`${plan.name} ${plan.model ?? ''}`),
    };
    planFacts.set(plan, facts);
  }
  return facts;
}

const STACK_MATCH = verdict('match', 1, (c) => `stack ${c.facts.stack} is one of the plan's stacks`);
const STACK_LETTER = verdict(
  'partial',
  0.5,
  (c) => `stack ${c.facts.stack} differs from a plan stack only by its letter`,
);
const STACK_MISMATCH = verdict(
  'mismatch',
  0,
  (c) => `stack ${c.facts.stack} is not in ${c.plan.stacks.join(', ')}`,
);

function stackSignal(facts: ListingFacts, plan: CandidatePlan, planFacts: PlanFacts): Evidence {
  if (!facts.stackKey) return NO_STACK;
  if (!plan.stacks.length) return PLAN_NO_STACKS;
  const { stackKeys, stackDigits: digits } = planFacts;
  if (stackKeys.includes(facts.stackKey)) return STACK_MATCH;
  if (facts.stackDigits !== null && digits.includes(facts.stackDigits)) return STACK_LETTER;
  return STACK_MISMATCH;
}

// Details are Latin-1 (here and below): one character outside it anywhere in an answer makes V8
// write all of it as a two-byte string, which made JSON.stringify of 100 listings several times slower.
const bounds = (plan: CandidatePlan) =>
  !finite(plan.floorMin)
    ? `floors up to ${plan.floorMax}`
    : !finite(plan.floorMax)
      ? `floors ${plan.floorMin} and up`
      : `${plan.floorMin}-${plan.floorMax}`;
const PENTHOUSE_PLAN_MATCH = verdict('match', 1, () => 'penthouse suite, penthouse plan');
const PENTHOUSE_TOP = verdict(
  'match',
  1,
  (c) => `penthouse suite, plan reaches the top floor (${c.plan.floorMax})`,
);
const PENTHOUSE_BELOW = verdict(
  'mismatch',
  0,
  (c) => `penthouse suite, plan stops at floor ${c.plan.floorMax}`,
);
const FLOOR_INSIDE = verdict('match', 1, (c) => `floor ${c.facts.floor} is within ${bounds(c.plan)}`);
const FLOOR_OUTSIDE = verdict('mismatch', 0, (c) => `floor ${c.facts.floor} is outside ${bounds(c.plan)}`);

function floorSignal(facts: ListingFacts, plan: CandidatePlan, planFacts: PlanFacts): Evidence {
  if (facts.penthouse) {
    if (planFacts.penthouse) return PENTHOUSE_PLAN_MATCH;
    if (!finite(plan.floorMax) || facts.topFloor === null) return PLAN_NO_FLOORS;
    return plan.floorMax === facts.topFloor ? PENTHOUSE_TOP : PENTHOUSE_BELOW;
  }
  if (facts.floor === null) return NO_FLOOR;
  if (!finite(plan.floorMin) && !finite(plan.floorMax)) return PLAN_NO_FLOORS;
  const inside =
    (!finite(plan.floorMin) || facts.floor >= plan.floorMin) &&
    (!finite(plan.floorMax) || facts.floor <= plan.floorMax);
  return inside ? FLOOR_INSIDE : FLOOR_OUTSIDE;
}

const BEDROOMS_MATCH = verdict('match', 1, (c) => `${c.plan.bedrooms} bedrooms`);
const BEDROOMS_WITH_DEN = verdict(
  'partial',
  0.5,
  (c) => `${c.listing.bedrooms} bedrooms if the plan's den counts as one`,
);
const BEDROOMS_MISMATCH = verdict(
  'mismatch',
  0,
  (c) => `${c.listing.bedrooms} bedrooms, plan has ${c.plan.bedrooms}`,
);

function bedroomsSignal(listing: ListingInput, plan: CandidatePlan): Evidence {
  if (!finite(listing.bedrooms)) return NO_BEDROOMS;
  if (listing.bedrooms === plan.bedrooms) return BEDROOMS_MATCH;
  // Listings often count a den as a bedroom ("2 bed" for a 1+den).
  if (plan.dens > 0 && listing.bedrooms === plan.bedrooms + plan.dens) return BEDROOMS_WITH_DEN;
  return BEDROOMS_MISMATCH;
}

const DENS_MATCH = verdict('match', 1, (c) => `${c.plan.dens} dens`);
const DENS_AS_BEDROOM = verdict('partial', 0.5, () => 'same room count with a den counted as a bedroom');
const DENS_MISMATCH = verdict('mismatch', 0, (c) => `${c.listing.dens} dens, plan has ${c.plan.dens}`);

function densSignal(listing: ListingInput, plan: CandidatePlan): Evidence {
  if (!finite(listing.dens)) return NO_DENS;
  if (listing.dens === plan.dens) return DENS_MATCH;
  if (finite(listing.bedrooms) && listing.bedrooms + listing.dens === plan.bedrooms + plan.dens) {
    return DENS_AS_BEDROOM;
  }
  return DENS_MISMATCH;
}

const bathroomsVs = (c: SignalContext) => `${c.listing.bathrooms} bathrooms, plan has ${c.plan.bathrooms}`;
const BATHROOMS_MATCH = verdict('match', 1, (c) => `${c.plan.bathrooms} bathrooms`);
const BATHROOMS_HALF = verdict('partial', 0.5, bathroomsVs);
const BATHROOMS_MISMATCH = verdict('mismatch', 0, bathroomsVs);

function bathroomsSignal(listing: ListingInput, plan: CandidatePlan): Evidence {
  if (!finite(listing.bathrooms)) return NO_BATHROOMS;
  const diff = Math.abs(listing.bathrooms - plan.bathrooms);
  if (diff === 0) return BATHROOMS_MATCH;
  // A powder room is written as a half bath by some and not at all by others.
  if (diff <= 0.5) return BATHROOMS_HALF;
  return BATHROOMS_MISMATCH;
}

const sqftTolerance = (area: number, tolerancePct: number) => Math.max(1, (area * tolerancePct) / 100);
const sqftVs = (c: SignalContext) => {
  const [min, max] = c.facts.sqft!;
  const asked = min === max ? `${min} sq ft` : `${min}-${max} sq ft`;
  const area = c.plan.interiorSqft!;
  return `${asked} vs ${area} sq ft ±${Math.round(sqftTolerance(area, c.sqftTolerancePct))}`;
};
const SQFT_PARTIAL = verdict('partial', 0.4, sqftVs);
const SQFT_MISMATCH = verdict('mismatch', 0, sqftVs);

/**
 * Within the tolerance the score still falls gently with distance (1 → 0.8), so a listing of 615
 * sq ft prefers the 610 plan to the 640 one; within twice the tolerance it is partial credit.
 */
function sqftSignal(facts: ListingFacts, plan: CandidatePlan, tolerancePct: number): Evidence {
  if (!facts.sqft) return NO_AREA;
  if (!finite(plan.interiorSqft)) return PLAN_NO_AREA;
  const [min, max] = facts.sqft;
  const tolerance = sqftTolerance(plan.interiorSqft, tolerancePct);
  const distance = Math.max(0, min - plan.interiorSqft, plan.interiorSqft - max);
  if (distance <= tolerance) return verdict('match', 1 - 0.2 * (distance / tolerance), sqftVs);
  if (distance <= 2 * tolerance) return SQFT_PARTIAL;
  return SQFT_MISMATCH;
}

/** An exposure as the details write it ("SW", "N/E"); most are one point, written without a join. */
const exposureLabel = (points: readonly string[]) => (points.length === 1 ? points[0] : points.join('/'));
const exposureVs = (c: SignalContext) =>
  `${exposureLabel(c.facts.exposure!)} vs ${exposureLabel(factsOf(c.plan).exposure!)}`;
const EXPOSURE_MATCH = verdict('match', 1, exposureVs);
const EXPOSURE_ADJACENT = verdict('partial', 0.5, (c) => `${exposureVs(c)} (adjacent)`);
const EXPOSURE_MISMATCH = verdict('mismatch', 0, exposureVs);

function exposureSignal(facts: ListingFacts, planFacts: PlanFacts): Evidence {
  if (!facts.exposure) return facts.noExposure;
  const planExposure = planFacts.exposure;
  if (!planExposure) return PLAN_NO_EXPOSURE;
  const steps = closestExposure(facts.exposure, planExposure);
  if (steps === 0) return EXPOSURE_MATCH;
  if (steps === 1) return EXPOSURE_ADJACENT;
  return EXPOSURE_MISMATCH;
}

/** The weighted signals, in the order they are reported. */
export const WEIGHTED_SIGNALS = [
  'stack',
  'floor_range',
  'bedrooms',
  'dens',
  'bathrooms',
  'interior_sqft',
  'exposure',
] as const satisfies readonly Exclude<SignalName, 'unit_schedule'>[];

/**
 * Every weighted signal for one plan, in the order of `WEIGHTED_SIGNALS`, written into `into`
 * (a listing is judged against every plan of its building: the judge passes one array for all).
 */
export function planEvidence(
  listing: ListingInput,
  facts: ListingFacts,
  plan: CandidatePlan,
  sqftTolerancePct: number,
  into: Evidence[] = new Array<Evidence>(WEIGHTED_SIGNALS.length),
  planFacts: PlanFacts = factsOf(plan),
): Evidence[] {
  into[0] = stackSignal(facts, plan, planFacts);
  into[1] = floorSignal(facts, plan, planFacts);
  into[2] = bedroomsSignal(listing, plan);
  into[3] = densSignal(listing, plan);
  into[4] = bathroomsSignal(listing, plan);
  into[5] = sqftSignal(facts, plan, sqftTolerancePct);
  into[6] = exposureSignal(facts, planFacts);
  return into;
}

/** Whether the listing's suite is in the plan's unit schedule: a hit decides the match outright. */
export function inSchedule(
  facts: ListingFacts,
  plan: CandidatePlan,
  planFacts: PlanFacts = factsOf(plan),
): boolean {
  return facts.unitKey !== null && plan.unitNumbers.length > 0 && planFacts.schedule.has(facts.unitKey);
}

/** A reported unit-schedule signal: one per listing, made as a literal (an object spread is slower). */
const scheduleVerdict = (result: MatchSignal['result'], score: number, detail: string): MatchSignal => ({
  signal: 'unit_schedule',
  weight: 0,
  result,
  score,
  detail,
});

/** The unit-schedule signal as reported (weight 0: a hit decides outright). */
export function scheduleSignal(listing: ListingInput, facts: ListingFacts, plan: CandidatePlan): MatchSignal {
  if (!facts.unitKey) return scheduleVerdict('missing', 0, 'listing gives no unit number');
  if (!plan.unitNumbers.length) return scheduleVerdict('missing', 0, 'plan has no unit schedule');
  return inSchedule(facts, plan)
    ? scheduleVerdict('match', 1, `unit ${listing.unitNumber} is in the plan's unit schedule`)
    : scheduleVerdict('mismatch', 0, `unit ${listing.unitNumber} is not in the plan's unit schedule`);
}
