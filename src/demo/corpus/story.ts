import type { DemoFloorPlan, DemoProject } from '../dataset.js';
import { createRng, hashSeed, type Rng } from '../prng.js';
import type { Category } from '../../enums.js';
import { CONCEPTS, mention, valueMention, type ConceptSection } from './concepts.js';
import type { Block } from './render.js';

/**
 * The facts one project's documents agree on (architect, fees, deposit schedule, which concepts
 * it mentions), drawn once from the project's own random stream so every document tells the
 * same story and a project's documents do not depend on the other projects.
 */
export interface ProjectStory {
  project: DemoProject;
  rng: Rng;
  /** Indices into CONCEPTS of what this project's current documents mention. */
  mentions: Set<number>;
  /**
   * Per concept of a rule family, the next spelling to print: such concepts take their spellings
   * in turn (from a per-project start), so the corpus prints each of them, not a random few.
   */
  spellingTurns: Map<number, number>;
  architect: string;
  interiorDesigner: string;
  lawFirm: string;
  accent: string;
  maintenancePerSqft: number;
  parkingPrice: number;
  lockerPrice: number;
  developmentChargeCap: number;
  signingDeposit: number;
  /** Days of the third and fourth deposit instalments when they are not catalogue mentions. */
  depositDays: [number, number];
  depositOnOccupancy: boolean;
  /** Published date of the current documents. */
  asOf: Date;
}

const ARCHITECTS = [
  'Hariri Marsh Architects',
  'Quadrangle West Studio',
  'Aldridge Kwan Architects Inc.',
  'Brennan + Okafor Architecture',
  'Northlight Design Group',
  'Vantage Architects Ltd.',
];
const DESIGNERS = [
  'Studio Tessellate',
  'Cecconi Hart Interiors',
  'Muse & Marlow Design',
  'Figure Ground Interiors',
  'Atelier Lumen',
];
const LAW_FIRMS = [
  'Whitmore & Clarke LLP',
  'Bellamy Stroud LLP',
  'Okonkwo Reyes LLP',
  'Tremblay Fisher s.r.l.',
];
const ACCENTS = ['#1F4E79', '#7A3E2E', '#2E5E4E', '#4B3F72', '#8A6D1F', '#2F4858', '#9C2F46'];

/** The corpus is dated relative to a fixed day, never the clock: the same seed gives the same bytes. */
export const REFERENCE_DATE = new Date(Date.UTC(2026, 10, 1));

export function monthsBefore(date: Date, months: number): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - months, 1));
}

export function buildStory(
  project: DemoProject,
  seed: number,
  mentions: Set<number>,
  spellingStarts: Map<number, number> = new Map(),
): ProjectStory {
  const rng = createRng(hashSeed(seed, 'story', project.key));
  const premium = project.priceMin / 600_000;
  return {
    project,
    rng,
    mentions,
    spellingTurns: new Map(spellingStarts),
    architect: rng.pick(ARCHITECTS),
    interiorDesigner: rng.pick(DESIGNERS),
    lawFirm: rng.pick(LAW_FIRMS),
    accent: rng.pick(ACCENTS),
    maintenancePerSqft: Number(rng.float(0.55, 0.82).toFixed(2)),
    parkingPrice: Math.round((rng.int(45, 95) * 1000 * Math.min(1.5, premium)) / 500) * 500,
    lockerPrice: rng.pick([5000, 6500, 7500, 9000, 12000]),
    developmentChargeCap: rng.pick([10000, 12500, 15000, 15000, 18000]),
    signingDeposit: rng.pick([7500, 10000, 10000, 15000, 20000]),
    depositDays: [rng.pick([120, 180]), rng.pick([365, 450, 540])],
    depositOnOccupancy: rng.chance(0.6),
    asOf: monthsBefore(REFERENCE_DATE, rng.int(0, 2)),
  };
}

/**
 * A price as documents print it. Suite prices ($100,000 and more) are recorded where they land
 * (the `table` family's facts); smaller amounts (deposits, parking, incentives) are also written
 * as literal text (`$5,000 on signing`, `$15,000 off`), so a record of them would not be complete.
 */
export function money(amount: number): string {
  const printed = `$${amount.toLocaleString('en-CA', { maximumFractionDigits: 0 })}`;
  return amount >= 100_000 ? valueMention(printed) : printed;
}

/** A size as documents print it, recorded where it lands (the `table` family's facts). */
export function area(sqft: number): string {
  return valueMention(`${sqft.toLocaleString('en-CA')} sq. ft.`);
}

export function monthYear(date: Date): string {
  return date.toLocaleString('en-CA', { month: 'long', year: 'numeric', timeZone: 'UTC' });
}

export function isoMonth(date: Date): string {
  return date.toISOString().slice(0, 7);
}

export function suiteType(plan: DemoFloorPlan): string {
  if (plan.model.startsWith('TH')) return `${plan.bedrooms} Bed Townhome${plan.dens ? ' + Den' : ''}`;
  if (plan.bedrooms === 0) return 'Studio';
  return `${plan.bedrooms} Bed${plan.dens ? ' + Den' : ''}`;
}

export function allPlans(project: DemoProject): DemoFloorPlan[] {
  return project.buildings.flatMap((b) => b.floorPlans);
}

/** The project's concepts of one section, in catalogue order. */
export function mentioned(story: ProjectStory, section: ConceptSection, within = story.mentions): number[] {
  return [...within].filter((i) => CONCEPTS[i].section === section).sort((a, b) => a - b);
}

/** A sentence mentioning concept `index` in one of its spellings, with the mention marked. */
export function say(story: ProjectStory, index: number, rng: Rng = story.rng): string {
  const concept = CONCEPTS[index];
  const context = rng.pick(concept.contexts);
  const turn = story.spellingTurns.get(index);
  let variant: string;
  if (turn === undefined) variant = rng.pick(concept.variants);
  else {
    variant = concept.variants[turn % concept.variants.length];
    story.spellingTurns.set(index, turn + 1);
  }
  if (context.startsWith('{}')) variant = variant[0].toUpperCase() + variant.slice(1);
  return context.replace('{}', mention(index, variant)).replace('{cap}', money(story.developmentChargeCap));
}

/** Plain statements mixed in with the mentions; none of them may contain a catalogue phrase. */
export const FILLER: Record<
  'kitchen' | 'interior' | 'bath' | 'building' | 'amenity' | 'incentive',
  string[]
> = {
  kitchen: [
    'Contemporary flat-panel cabinetry with soft-close doors and drawers',
    'Single-lever chrome kitchen faucet',
    'Under-cabinet LED task lighting',
    'Designer-selected cabinet hardware',
    'Ceramic tile backsplash',
    'Built-in microwave with integrated exhaust',
  ],
  interior: [
    'Solid-core suite entry door with security viewer',
    'Individually controlled heating and cooling',
    'Stacked front-loading washer and dryer',
    'Mirrored sliding closet doors (per plan)',
    'Painted white baseboards and door casings',
    'Capped ceiling outlet in dining area',
    'Roller blinds on all exterior glazing',
  ],
  bath: [
    'Porcelain tile flooring in bathrooms',
    'Custom vanity with stone top and integrated basin',
    'Deep soaker tub with full-height tile surround',
    'Pressure-balanced shower valve',
    'Frameless mirror with LED backlighting',
    'Dual-flush water-efficient toilet',
  ],
  building: [
    'Energy-efficient LED lighting in common areas',
    'Fob access to lobby, amenities and garage',
    'Video surveillance at all building entrances',
    'Smoke and carbon monoxide detectors in every suite',
    'Underground visitor parking',
  ],
  amenity: [
    'Fitness centre with yoga studio',
    'Outdoor terrace with BBQ stations',
    "Children's play room",
    'Parcel room with smart lockers',
    'Media lounge and theatre room',
    'Landscaped courtyard',
    'Music practice room',
  ],
  incentive: [
    'Complimentary upgrade package valued at $8,000',
    'Locker included with all two-bedroom suites',
    'Capped utility connection and meter installation fees at $1,500',
    'Extended 10-day cooling-off period for review by your lawyer',
    'Price guarantee on all suites reserved this month',
  ],
};

/** One document before layout: content blocks with marked mentions. */
export interface DraftDocument {
  category: Category;
  type: string;
  /** File name stem inside the project's folder, unique per project. */
  stem: string;
  date: Date;
  /** Whether the published name carries the month (price lists, notices). */
  dated: boolean;
  blocks: Block[];
  /** Tables need the full page width, so such documents are never set in two columns. */
  hasTables: boolean;
  /**
   * Queries a careless reading of this document's tables would answer (two neighbouring columns
   * read as one number): they must find nothing, unless the corpus prints that value somewhere.
   */
  traps?: string[];
}
