import type { DemoFloorPlan } from './dataset.js';
import type { Rng } from './prng.js';
import { EXPOSURES, type City } from './places.js';

/**
 * Floor plans of one building: suite types with realistic sizes, stacks and floor ranges, an
 * explicit unit schedule for some plans, penthouses reusing the stacks below them, and prices
 * from the city's price per square foot.
 */

/** Prices end in 900, the way price lists quote them. */
export function roundPrice(value: number): number {
  return Math.round(value / 1000) * 1000 - 100;
}

interface PlanType {
  code: string;
  bedrooms: number;
  dens: number;
  sqft: [number, number];
  bathrooms: number[];
  weight: number;
  priceFactor: number;
}

const CONDO_TYPES: readonly PlanType[] = [
  { code: 'S', bedrooms: 0, dens: 0, sqft: [360, 480], bathrooms: [1], weight: 10, priceFactor: 1.12 },
  { code: '1B', bedrooms: 1, dens: 0, sqft: [480, 600], bathrooms: [1], weight: 25, priceFactor: 1.05 },
  { code: '1BD', bedrooms: 1, dens: 1, sqft: [580, 720], bathrooms: [1, 2], weight: 25, priceFactor: 1.02 },
  { code: '2B', bedrooms: 2, dens: 0, sqft: [700, 900], bathrooms: [2], weight: 22, priceFactor: 1 },
  { code: '2BD', bedrooms: 2, dens: 1, sqft: [850, 1050], bathrooms: [2], weight: 10, priceFactor: 1 },
  { code: '3B', bedrooms: 3, dens: 0, sqft: [1000, 1400], bathrooms: [2, 3], weight: 8, priceFactor: 0.98 },
];

export interface PlanContext {
  rng: Rng;
  city: City;
  premium: number;
  names: string[];
}

function makePlan(
  ctx: PlanContext,
  type: PlanType,
  fields: Pick<DemoFloorPlan, 'model' | 'floorMin' | 'floorMax' | 'stacks' | 'unitNumbers'> & {
    sqft?: number;
  },
): DemoFloorPlan {
  const { rng } = ctx;
  const interiorSqft = fields.sqft ?? rng.int(type.sqft[0], type.sqft[1]);
  const floorPremium = 1 + 0.004 * Math.max(0, fields.floorMin - 2);
  return {
    name: ctx.names.shift() ?? `Suite ${fields.model}`,
    model: fields.model,
    bedrooms: type.bedrooms,
    dens: type.dens,
    bathrooms: rng.pick(type.bathrooms),
    interiorSqft,
    exteriorSqft:
      type.code === 'TH' ? rng.int(120, 420) : rng.chance(0.1) ? 0 : rng.int(45, 180 + type.bedrooms * 40),
    exposure: rng.pick(EXPOSURES),
    floorMin: fields.floorMin,
    floorMax: fields.floorMax,
    stacks: fields.stacks,
    unitNumbers: fields.unitNumbers,
    startPrice: roundPrice(
      interiorSqft * ctx.city.pricePerSqft * type.priceFactor * ctx.premium * floorPremium,
    ),
  };
}

export function towerPlans(ctx: PlanContext, storeys: number, unitsPerFloor: number): DemoFloorPlan[] {
  const { rng } = ctx;
  const penthouse = storeys >= 20 && rng.chance(0.4);
  const count = rng.int(3, penthouse ? 7 : 8);
  const stackPool = rng.shuffle(
    Array.from({ length: unitsPerFloor }, (_, i) => String(i + 1).padStart(2, '0')),
  );
  const perPlan = stackPool.length >= count * 2 ? 2 : 1;
  const topFloor = penthouse ? storeys - 2 : storeys;
  const plans: DemoFloorPlan[] = [];
  for (let i = 0; i < count; i++) {
    const type = rng.weighted(
      CONDO_TYPES,
      CONDO_TYPES.map((t) => t.weight),
    );
    const stacks = stackPool.splice(0, rng.int(1, perPlan)).sort();
    const floorMin = rng.int(2, Math.max(2, Math.floor(storeys / 3)));
    const floorMax = rng.int(
      Math.min(topFloor, Math.max(floorMin + 2, Math.floor(topFloor * 0.6))),
      topFloor,
    );
    const units = stacks.flatMap((s) =>
      Array.from({ length: floorMax - floorMin + 1 }, (_, f) => `${floorMin + f}${s}`),
    );
    const model = `${type.code}-${String(i + 1).padStart(2, '0')}`;
    const unitNumbers = rng.chance(0.3) && units.length <= 30 ? units : [];
    plans.push(makePlan(ctx, type, { model, floorMin, floorMax, stacks, unitNumbers }));
  }
  if (penthouse) {
    // Penthouse suites sit on the top floors of stacks that lower plans already use.
    const type = rng.pick(CONDO_TYPES.slice(4));
    const stacks = [rng.pick(plans).stacks[0]];
    const floors = [storeys - 1, storeys];
    plans.push(
      makePlan(ctx, type, {
        model: 'PH-01',
        floorMin: storeys - 1,
        floorMax: storeys,
        stacks,
        unitNumbers: floors.map((f) => `${f}${stacks[0]}`),
        sqft: rng.int(1200, 1900),
      }),
    );
  }
  return plans;
}

export function townPlans(ctx: PlanContext, firstUnit: number): DemoFloorPlan[] {
  const { rng } = ctx;
  const count = rng.int(3, 6);
  let unit = firstUnit;
  return Array.from({ length: count }, (_, i) => {
    const bedrooms = rng.int(2, 4);
    const type: PlanType = {
      code: 'TH',
      bedrooms,
      dens: rng.chance(0.3) ? 1 : 0,
      sqft: [1000 + bedrooms * 150, 1300 + bedrooms * 280],
      bathrooms: [2.5, 3.5],
      weight: 1,
      priceFactor: 0.85,
    };
    const units = Array.from({ length: rng.int(4, 10) }, () => `TH${String(unit++).padStart(2, '0')}`);
    return makePlan(ctx, type, {
      model: `TH-${String(i + 1).padStart(2, '0')}`,
      floorMin: 1,
      floorMax: 3,
      stacks: [],
      unitNumbers: units,
    });
  });
}
