import fc from 'fast-check';
import {
  DEFAULT_THRESHOLDS,
  matchListing,
  MIN_EVIDENCE_WEIGHT,
  type CandidatePlan,
  type ListingInput,
  type ListingMatchResult,
  type MatchSignal,
  type MatchThresholds,
} from '../../../src/matching/floorplan-match.js';

function plan(id: number, fields: Partial<CandidatePlan> = {}): CandidatePlan {
  return {
    id,
    projectId: 1,
    buildingId: 101,
    name: `Plan ${id}`,
    model: null,
    bedrooms: 1,
    dens: 0,
    bathrooms: 1,
    interiorSqft: null,
    exteriorSqft: null,
    exposure: null,
    floorMin: null,
    floorMax: null,
    stacks: [],
    unitNumbers: [],
    startPrice: null,
    ...fields,
  };
}

/** A tower of four suite types on floors 2-30, two stacks each. */
const TOWER: CandidatePlan[] = [
  plan(1, {
    name: 'Aspen',
    interiorSqft: 520,
    stacks: ['01', '08'],
    floorMin: 2,
    floorMax: 30,
    exposure: 'N',
  }),
  plan(2, {
    name: 'Birch',
    dens: 1,
    interiorSqft: 610,
    stacks: ['02', '07'],
    floorMin: 2,
    floorMax: 30,
    exposure: 'E',
  }),
  plan(3, {
    name: 'Cedar',
    bedrooms: 2,
    bathrooms: 2,
    interiorSqft: 850,
    stacks: ['03', '06'],
    floorMin: 2,
    floorMax: 30,
    exposure: 'S',
  }),
  plan(4, {
    name: 'Dogwood',
    bedrooms: 2,
    bathrooms: 2,
    interiorSqft: 870,
    stacks: ['04', '05'],
    floorMin: 2,
    floorMax: 30,
    exposure: 'W',
  }),
];

const listing = (fields: Partial<ListingInput> = {}): ListingInput => ({ ref: 'L1', ...fields });

function signal(result: ListingMatchResult, name: MatchSignal['signal']): MatchSignal {
  const found = result.signals.find((s) => s.signal === name);
  if (!found) throw new Error(`no ${name} signal`);
  return found;
}

/** The score a client recomputes from the signals (a unit-schedule hit scores 1 outright). */
function recomputed(signals: MatchSignal[]): number {
  const total = signals.reduce((sum, s) => sum + s.weight, 0);
  return total ? signals.reduce((sum, s) => sum + s.weight * s.score, 0) / total : 0;
}

describe('matchListing: status and winner', () => {
  it.each<[string, Partial<ListingInput>, ListingMatchResult['status'], number | null]>([
    ['suite number alone: stack and floor', { unitNumber: '1203' }, 'matched', 3],
    ['suite number with dashes and a prefix', { unitNumber: 'Suite 12-06' }, 'matched', 3],
    ['suite above the plans’ floors', { unitNumber: '3503' }, 'no_match', null],
    ['explicit floor beats the floor in the suite number', { unitNumber: '3503', floor: 30 }, 'matched', 3],
    [
      'bedrooms, bathrooms, area and exposure',
      { bedrooms: 2, bathrooms: 2, interiorSqft: 850, exposure: 'S' },
      'matched',
      3,
    ],
    ['two plans fit the same facts', { bedrooms: 2, bathrooms: 2, interiorSqft: 860 }, 'ambiguous', null],
    [
      'the stack settles what the facts leave open',
      { unitNumber: '904', bedrooms: 2, interiorSqft: 860 },
      'matched',
      4,
    ],
    ['1+den by its rooms', { bedrooms: 1, dens: 1, bathrooms: 1 }, 'matched', 2],
    ['contradicting every plan', { bedrooms: 4, bathrooms: 3, interiorSqft: 2000 }, 'no_match', null],
  ])('%s', (_name, fields, status, best) => {
    const result = matchListing(listing(fields), TOWER);
    expect(result.status).toBe(status);
    expect(result.bestMatch?.floorPlanId ?? null).toBe(best);
    if (best) {
      expect(result.candidates[0].floorPlanId).toBe(best);
      expect(result.bestMatch!.plan).toBe(TOWER.find((p) => p.id === best));
      expect(result.message).toBeNull();
    }
  });

  it('ranks candidates best first and explains the leader', () => {
    const result = matchListing(listing({ bedrooms: 2, bathrooms: 2, interiorSqft: 860 }), TOWER);
    // 860 is 10 sq ft from both; the tolerance (5% of the plan) is wider for the larger plan.
    expect(result.candidates.map((c) => c.floorPlanId)).toEqual([4, 3, 2, 1]);
    expect(result.candidates[0].score).toBeGreaterThan(result.candidates[1].score);
    expect(result.candidates[0].score - result.candidates[1].score).toBeLessThan(DEFAULT_THRESHOLDS.minLead);
    expect(signal(result, 'interior_sqft')).toMatchObject({ result: 'match', weight: 3 });
  });

  it('reports each signal with a score the client can recompute', () => {
    const result = matchListing(
      listing({ unitNumber: '1203', bedrooms: 2, interiorSqft: 900, exposure: 'SW' }),
      TOWER,
    );
    expect(result.signals.map((s) => [s.signal, s.result])).toEqual([
      ['unit_schedule', 'missing'],
      ['stack', 'match'],
      ['floor_range', 'match'],
      ['bedrooms', 'match'],
      ['dens', 'missing'],
      ['bathrooms', 'missing'],
      ['interior_sqft', 'partial'],
      ['exposure', 'partial'],
    ]);
    expect(recomputed(result.signals)).toBeCloseTo(result.candidates[0].score, 4);
    for (const s of result.signals) expect(s.detail.length).toBeGreaterThan(0);
  });
});

describe('matchListing: unit schedule', () => {
  const scheduled = [
    plan(7, { bedrooms: 2, interiorSqft: 850, unitNumbers: ['1203', '1303'] }),
    // Identical on every other signal and first by id: only the schedule tells them apart.
    plan(5, { bedrooms: 2, interiorSqft: 850, unitNumbers: ['1206'] }),
  ];

  it.each(['1203', '12-03', 'Unit #1203'])('a schedule hit (%j) wins outright', (unitNumber) => {
    const result = matchListing(listing({ unitNumber, bedrooms: 3, interiorSqft: 1500 }), scheduled);
    expect(result).toMatchObject({
      status: 'matched',
      bestMatch: { floorPlanId: 7, score: 1 },
      message: null,
    });
    expect(signal(result, 'unit_schedule')).toMatchObject({ result: 'match', score: 1 });
    // The other signals still say how the listing disagrees with the plan.
    expect(signal(result, 'bedrooms').result).toBe('mismatch');
  });

  it('a suite in two schedules is ambiguous between them, with a message', () => {
    const conflicting = [...scheduled, plan(9, { unitNumbers: ['1203'] }), plan(8)];
    const result = matchListing(listing({ unitNumber: '1203' }), conflicting);
    expect(result.status).toBe('ambiguous');
    expect(result.bestMatch).toBeNull();
    expect(result.candidates).toEqual([
      { floorPlanId: 7, name: 'Plan 7', score: 1 },
      { floorPlanId: 9, name: 'Plan 9', score: 1 },
    ]);
    expect(result.message).toMatch(/unit schedules of several floor plans/);
  });

  it('a suite in no schedule falls back to the other signals', () => {
    const result = matchListing(listing({ unitNumber: '1210', bedrooms: 2, interiorSqft: 850 }), scheduled);
    expect(signal(result, 'unit_schedule').result).toBe('mismatch');
    // Neither plan records stacks or floors: unknowns are neutral, which keeps both below a match.
    expect(result.status).toBe('no_match');
    expect(result.candidates.map((c) => c.score)).toEqual([0.7727, 0.7727]);
  });
});

describe('matchListing: missing information', () => {
  it('leaves fields the listing omits out of the score', () => {
    const result = matchListing(listing({ bedrooms: 1, dens: 1, bathrooms: 1 }), TOWER);
    expect(result.bestMatch).toMatchObject({ floorPlanId: 2, score: 1 });
    for (const name of ['stack', 'floor_range', 'interior_sqft', 'exposure'] as const) {
      expect(signal(result, name)).toMatchObject({ result: 'missing', weight: 0 });
    }
  });

  it('counts data the plan lacks as neutral, so sparse plans cannot win on silence', () => {
    const plans = [
      plan(1, { bedrooms: 2, bathrooms: 2, interiorSqft: 850 }),
      plan(2, { bedrooms: 2, bathrooms: 2 }),
    ];
    const result = matchListing(listing({ bedrooms: 2, bathrooms: 2, interiorSqft: 850 }), plans);
    expect(result.bestMatch?.floorPlanId).toBe(1);
    const sparse = matchListing(listing({ bedrooms: 2, bathrooms: 2, interiorSqft: 850 }), [plans[1]]);
    expect(signal(sparse, 'interior_sqft')).toMatchObject({ result: 'missing', weight: 3, score: 0.5 });
    expect(sparse.candidates[0].score).toBeCloseTo((3 + 2 + 1.5) / 8, 4);
  });

  it('a listing with only a ref is no match, with a message', () => {
    const result = matchListing(listing(), TOWER);
    expect(result).toEqual({
      ref: 'L1',
      status: 'no_match',
      bestMatch: null,
      candidates: [],
      signals: [],
      message: expect.stringMatching(/too little information/),
    });
  });

  it(`needs at least ${MIN_EVIDENCE_WEIGHT} weight of evidence to match, however clear the lead`, () => {
    // Bedrooms and dens single out the Aspen, but a 1-bedroom listing could be any building's 1-bedroom.
    const result = matchListing(listing({ bedrooms: 1, dens: 0 }), TOWER);
    expect(result.candidates[0]).toMatchObject({ floorPlanId: 1, score: 1 });
    expect(result.status).toBe('ambiguous');
    expect(result.bestMatch).toBeNull();
    expect(result.message).toMatch(/too little information/);
  });

  it('ignores an unreadable exposure instead of counting it against every plan', () => {
    const result = matchListing(listing({ unitNumber: '1203', exposure: 'lake view' }), TOWER);
    expect(signal(result, 'exposure')).toMatchObject({ result: 'missing', weight: 0 });
    expect(result.status).toBe('matched');
  });
});

describe('matchListing: scope', () => {
  const plans = [
    plan(1, { buildingId: 101, bedrooms: 2 }),
    plan(2, { buildingId: 102, bedrooms: 2 }),
    plan(3, { buildingId: null, bedrooms: 2 }),
    plan(4, { projectId: 2, buildingId: null, bedrooms: 2 }),
  ];

  it.each<[Partial<ListingInput>, number[]]>([
    [{ buildingId: 101 }, [1, 3, 4]],
    [{ buildingId: 101, projectId: 1 }, [1, 3]],
    [{ projectId: 2 }, [4]],
    [{}, [1, 2, 3, 4]],
  ])('%j considers plans %j', (scope, ids) => {
    const result = matchListing(listing({ ...scope, bedrooms: 2 }), plans);
    expect(result.candidates.map((c) => c.floorPlanId).sort()).toEqual(ids);
  });

  it('says so when no plan is known for the building', () => {
    expect(matchListing(listing({ buildingId: 109, projectId: 9, bedrooms: 2 }), plans)).toMatchObject({
      status: 'no_match',
      candidates: [],
      message: expect.stringMatching(/no floor plans/),
    });
    expect(matchListing(listing({ bedrooms: 2 }), []).status).toBe('no_match');
  });
});

describe('matchListing: signals', () => {
  const one = (
    fields: Partial<ListingInput>,
    p: Partial<CandidatePlan>,
    name: MatchSignal['signal'],
    t?: MatchThresholds,
  ) => signal(matchListing(listing(fields), [plan(1, p)], t), name);

  it.each<[ListingInput['interiorSqft'], number | null, MatchSignal['result'], number]>([
    [850, 850, 'match', 1],
    [870, 850, 'match', 0.9059], // 20 of a 42.5 sq ft tolerance
    [892, 850, 'match', 0.8024],
    [900, 850, 'partial', 0.4],
    [935, 850, 'partial', 0.4],
    [936, 850, 'mismatch', 0],
    [[800, 899], 850, 'match', 1],
    [[899, 800], 850, 'match', 1],
    [[880, 950], 850, 'match', 0.8588],
    [[900, 950], 850, 'partial', 0.4],
    [[1000, 1100], 850, 'mismatch', 0],
    [[600, 700], 850, 'mismatch', 0],
    [850, null, 'missing', 0.5],
  ])('area %j vs plan %j: %s %d', (sqft, planSqft, result, score) => {
    expect(one({ interiorSqft: sqft }, { interiorSqft: planSqft }, 'interior_sqft')).toMatchObject({
      result,
      score,
    });
  });

  it('widens the area tolerance with the thresholds', () => {
    const wide = { ...DEFAULT_THRESHOLDS, sqftTolerancePct: 10 };
    expect(one({ interiorSqft: 900 }, { interiorSqft: 850 }, 'interior_sqft', wide).result).toBe('match');
  });

  it.each<[string, string | null, MatchSignal['result'], number, number]>([
    ['S', 'S', 'match', 1, 1],
    ['SW', 'S', 'partial', 0.5, 1],
    ['south-west', 'S', 'partial', 0.5, 1],
    ['S', 'SE', 'partial', 0.5, 1],
    ['N', 'NW', 'partial', 0.5, 1],
    ['NE', 'E', 'partial', 0.5, 1],
    ['N', 'E', 'mismatch', 0, 1],
    ['N', 'S', 'mismatch', 0, 1],
    ['N, E', 'E', 'match', 1, 1],
    ['S', null, 'missing', 0.5, 1],
    ['sunny', 'S', 'missing', 0, 0],
  ])('exposure %j vs plan %j: %s', (exposure, planExposure, result, score, weight) => {
    expect(one({ exposure, bedrooms: 1 }, { exposure: planExposure }, 'exposure')).toMatchObject({
      result,
      score,
      weight,
    });
  });

  it.each<[Partial<ListingInput>, Partial<CandidatePlan>, MatchSignal['signal'], MatchSignal['result']]>([
    [{ bedrooms: 2 }, { bedrooms: 2 }, 'bedrooms', 'match'],
    [{ bedrooms: 2 }, { bedrooms: 1, dens: 1 }, 'bedrooms', 'partial'],
    [{ bedrooms: 2 }, { bedrooms: 1 }, 'bedrooms', 'mismatch'],
    [{ bedrooms: 2, dens: 0 }, { bedrooms: 1, dens: 1 }, 'dens', 'partial'],
    [{ bedrooms: 1, dens: 0 }, { bedrooms: 1, dens: 1 }, 'dens', 'mismatch'],
    [{ dens: 1 }, { dens: 1 }, 'dens', 'match'],
    [{ bathrooms: 1.5 }, { bathrooms: 1 }, 'bathrooms', 'partial'],
    [{ bathrooms: 2 }, { bathrooms: 1 }, 'bathrooms', 'mismatch'],
    [{ bathrooms: 2 }, { bathrooms: 2 }, 'bathrooms', 'match'],
    [{ unitNumber: '1204A' }, { stacks: ['04'] }, 'stack', 'partial'],
    [{ unitNumber: '1204A' }, { stacks: ['04A'] }, 'stack', 'match'],
    [{ unitNumber: '1204' }, { stacks: ['4'] }, 'stack', 'match'],
    [{ unitNumber: '1204' }, { stacks: ['05', '14'] }, 'stack', 'mismatch'],
    [{ unitNumber: '1204' }, { stacks: [] }, 'stack', 'missing'],
    [{ unitNumber: 'TH3', bedrooms: 1 }, { stacks: ['03'] }, 'stack', 'missing'],
    [{ unitNumber: '1204' }, { floorMin: 12, floorMax: 12 }, 'floor_range', 'match'],
    [{ unitNumber: '1204' }, { floorMin: 13 }, 'floor_range', 'mismatch'],
    [{ unitNumber: '1204' }, { floorMax: 11 }, 'floor_range', 'mismatch'],
    [{ unitNumber: '1204' }, { floorMin: 2 }, 'floor_range', 'match'],
    [{ floor: 7 }, { floorMin: 2, floorMax: 30 }, 'floor_range', 'match'],
  ])('%j vs plan %j: %s %s', (fields, p, name, result) => {
    expect(one(fields, p, name).result).toBe(result);
  });
});

describe('matchListing: penthouse suites', () => {
  const tower = [
    plan(11, { name: 'Sky 2B', bedrooms: 2, stacks: ['05'], floorMin: 2, floorMax: 38 }),
    plan(12, { name: 'Penthouse B', bedrooms: 2, stacks: ['05'], floorMin: 39, floorMax: 40 }),
  ];
  const noPenthousePlans = [
    plan(11, { name: 'Sky 2B', bedrooms: 2, stacks: ['05'], floorMin: 2, floorMax: 38 }),
    plan(13, { name: 'Sky 2C', bedrooms: 2, stacks: ['05'], floorMin: 2, floorMax: 40 }),
  ];

  it.each<[string, CandidatePlan[], Partial<ListingInput>, number]>([
    ['a PH suite takes the penthouse plan', tower, { unitNumber: 'PH05' }, 12],
    ['written with a level', tower, { unitNumber: 'PH2-05', bedrooms: 2 }, 12],
    [
      'otherwise the plan that reaches the top floor',
      noPenthousePlans,
      { unitNumber: 'PH05', bedrooms: 2 },
      13,
    ],
    [
      'an explicit floor is checked against the ranges',
      noPenthousePlans,
      { unitNumber: 'PH05', floor: 39, bedrooms: 2 },
      13,
    ],
  ])('%s', (_name, plans, fields, best) => {
    const result = matchListing(listing(fields), plans);
    expect(result.status).toBe('matched');
    expect(result.bestMatch?.floorPlanId).toBe(best);
    expect(signal(result, 'floor_range').result).toBe('match');
  });

  it('a PH suite is not on a plan that stops below the top', () => {
    const result = matchListing(listing({ unitNumber: 'PH05', bedrooms: 2 }), tower);
    const x = result.candidates.find((c) => c.floorPlanId === 11)!;
    expect(x.score).toBeCloseTo((3 + 0 + 3) / 8, 4);
  });

  it('an ordinary suite on the same stack is not a penthouse', () => {
    const result = matchListing(listing({ unitNumber: '1205', bedrooms: 2 }), tower);
    expect(result.bestMatch?.floorPlanId).toBe(11);
  });
});

describe('matchListing: thresholds and ties', () => {
  // Suite 1203 scores 1 on the Cedar and 0.4 on every other plan (floor only): a lead of 0.6.
  it.each<[Partial<MatchThresholds>, ListingMatchResult['status']]>([
    [{}, 'matched'],
    [{ matchScore: 1 }, 'matched'],
    [{ matchScore: 1.0001 }, 'no_match'],
    [{ minLead: 0.6 }, 'matched'],
    [{ minLead: 0.6001 }, 'ambiguous'],
  ])('thresholds %j → %s', (overrides, status) => {
    const result = matchListing(listing({ unitNumber: '1203' }), TOWER, {
      ...DEFAULT_THRESHOLDS,
      ...overrides,
    });
    expect(result.status).toBe(status);
    expect(result.candidates.map((c) => c.score)).toEqual([1, 0.4, 0.4, 0.4]);
  });

  it('returns at most maxCandidates', () => {
    const result = matchListing(listing({ unitNumber: '1203' }), TOWER, {
      ...DEFAULT_THRESHOLDS,
      maxCandidates: 2,
    });
    expect(result.candidates.map((c) => c.floorPlanId)).toEqual([3, 1]);
  });

  it.each([
    [
      [10, 9, 100],
      [9, 10, 100],
    ],
    [
      [3, 1, 2],
      [1, 2, 3],
    ],
  ])('breaks equal scores by plan id: %j → %j', (ids, order) => {
    const twins = ids.map((id) => plan(id, { bedrooms: 2, bathrooms: 2, interiorSqft: 850 }));
    const result = matchListing(listing({ bedrooms: 2, bathrooms: 2, interiorSqft: 850 }), twins);
    expect(result.status).toBe('ambiguous');
    expect(result.candidates.map((c) => c.floorPlanId)).toEqual(order);
    expect(new Set(result.candidates.map((c) => c.score)).size).toBe(1);
  });
});

describe('matchListing: properties', () => {
  const listingArb = fc.record({
    ref: fc.constant('L'),
    unitNumber: fc.option(fc.constantFrom('1203', '904', 'PH05', '3503', '12-07', 'TH3', '1204A'), {
      nil: undefined,
    }),
    floor: fc.option(fc.integer({ min: 1, max: 45 }), { nil: undefined }),
    bedrooms: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
    dens: fc.option(fc.integer({ min: 0, max: 1 }), { nil: undefined }),
    bathrooms: fc.option(fc.constantFrom(1, 1.5, 2, 2.5), { nil: undefined }),
    interiorSqft: fc.option(
      fc.oneof(
        fc.integer({ min: 400, max: 1500 }),
        fc.tuple(fc.integer({ min: 400, max: 1500 }), fc.integer({ min: 400, max: 1500 })),
      ),
      { nil: undefined },
    ),
    exposure: fc.option(fc.constantFrom('N', 'SW', 'south', 'E/W', 'lake'), { nil: undefined }),
  });
  const plans = [
    ...TOWER,
    plan(5, { bedrooms: 2, unitNumbers: ['904'] }),
    plan(6, { name: 'PH Suite', bedrooms: 3 }),
    plan(7, { bedrooms: 2, floorMin: 12, stacks: ['04'] }),
    plan(8, { bedrooms: 1, floorMax: 9, stacks: ['05'], interiorSqft: 600 }),
  ];

  it('does not depend on the order plans arrive in, and its signals add up', () => {
    fc.assert(
      fc.property(listingArb, fc.shuffledSubarray(plans, { minLength: plans.length }), (l, shuffled) => {
        const result = matchListing(l, plans);
        expect(matchListing(l, shuffled)).toEqual(result);
        for (const c of result.candidates) expect(c.score).toBeGreaterThanOrEqual(0);
        for (const c of result.candidates) expect(c.score).toBeLessThanOrEqual(1);
        if (result.candidates.length && signal(result, 'unit_schedule').result !== 'match') {
          expect(recomputed(result.signals)).toBeCloseTo(result.candidates[0].score, 3);
        }
        // Latin-1 only: one wider character makes V8 write the whole answer as a two-byte string
        // (several times slower to serialize and send).
        for (const s of result.signals) expect(s.detail).toMatch(/^[\x20-\xff]+$/);
        if (result.status === 'matched')
          expect(result.bestMatch?.floorPlanId).toBe(result.candidates[0].floorPlanId);
        else expect(result.bestMatch).toBeNull();
      }),
      { numRuns: 300 },
    );
  });
});
