/**
 * The things the demo documents mention, each with the query that must find it. Every mention in
 * the corpus is written through this catalogue (see `mention`), so the manifest knows exactly which
 * projects mention what: the ground truth for "which projects mention X". Variants are the
 * spellings real documents use; each is equal to the query after normalization or through one of
 * the search synonym groups. Prevalence is the share of projects that mention the concept, chosen
 * so that some concepts are everywhere, some in one or two projects, and `ABSENT_CONCEPTS` nowhere.
 */
export type ConceptSection =
  'kitchen' | 'interior' | 'bath' | 'building' | 'amenity' | 'incentive' | 'deposit';

/**
 * What a concept's spellings test. `catalogue`: everyday features, found by their query
 * through normalization and the synonym file. The others are found by rule, whatever the synonym
 * file says, so every variant must also work as a query and find all the others:
 * `split-word`, one word broken by a space or hyphen (`under ground`); `compound`, hyphen, space
 * and joined spellings (`soft-close`, `softclose`); `number`, thousands separators, decimals and
 * fractions (`12,500`, `12 500`, `2 1/2`), whose `traps` (a number's tail, a fraction's part) must
 * find nothing; `abbreviation`, period abbreviations (`ft.`, `St.`); `near-miss`, words a careless
 * split or join rule would confuse with a phrase, with `traps` that must find nothing.
 */
export type ConceptFamily = 'catalogue' | 'split-word' | 'compound' | 'number' | 'abbreviation' | 'near-miss';

export interface Concept {
  query: string;
  family: ConceptFamily;
  section: ConceptSection;
  prevalence: number;
  variants: readonly string[];
  /** Sentences around a mention; `{}` marks where the variant goes. */
  contexts: readonly string[];
  /** Queries that look like this concept but are not it: they must find nothing in the corpus. */
  traps?: readonly string[];
}

export const CONCEPTS: readonly Concept[] = [
  {
    query: 'quartz countertops',
    family: 'catalogue',
    section: 'kitchen',
    prevalence: 0.75,
    variants: ['quartz countertops', 'quartz counter-tops', 'quartz counter tops'],
    contexts: ['Custom-designed kitchen cabinetry with {}', '{} with matching full-height backsplash'],
  },
  {
    query: '30 inch gas range',
    family: 'catalogue',
    section: 'kitchen',
    prevalence: 0.3,
    variants: ['30" gas range', '30-inch gas range', '30 in. gas range'],
    contexts: ['Professional-style {} with hood fan vented to exterior', '{} in all two-bedroom suites'],
  },
  {
    query: 'stainless steel appliances',
    family: 'catalogue',
    section: 'kitchen',
    prevalence: 0.8,
    variants: ['stainless steel appliances', 'stainless-steel appliances'],
    contexts: ['Energy Star® {}: fridge, cooktop, wall oven, dishwasher and microwave', 'Full-size {}'],
  },
  {
    query: 'Miele',
    family: 'catalogue',
    section: 'kitchen',
    prevalence: 0.12,
    variants: ['Miele'],
    contexts: [
      'Integrated {} appliance package with panelled fridge',
      '{} built-in wall oven and induction cooktop',
    ],
  },
  {
    query: 'Bosch',
    family: 'catalogue',
    section: 'kitchen',
    prevalence: 0.25,
    variants: ['Bosch'],
    contexts: ['Panel-ready {} dishwasher', '{} front-loading washer and dryer'],
  },
  {
    query: 'Sub-Zero',
    family: 'catalogue',
    section: 'kitchen',
    prevalence: 0.05,
    variants: ['Sub-Zero'],
    contexts: ['Integrated {} column refrigerator in penthouse suites'],
  },
  {
    query: 'wine fridge',
    family: 'catalogue',
    section: 'kitchen',
    prevalence: 0.08,
    variants: ['wine fridge', 'wine cooler'],
    contexts: ['Under-counter {} in select suites'],
  },
  {
    query: 'waterfall island',
    family: 'catalogue',
    section: 'kitchen',
    prevalence: 0.1,
    variants: ['waterfall island'],
    contexts: ['Stone {} with seating, per plan'],
  },
  {
    query: 'undermount sink',
    family: 'catalogue',
    section: 'kitchen',
    prevalence: 0.4,
    variants: ['undermount sink', 'under-mount sink'],
    contexts: ['Single-bowl {} with pull-down faucet'],
  },
  {
    query: '9 foot ceilings',
    family: 'catalogue',
    section: 'interior',
    prevalence: 0.7,
    variants: ["9' ceilings", '9-foot ceilings', '9 ft. ceilings'],
    contexts: [
      'Approximately {} in principal rooms, excluding bulkheads',
      'Smooth-finish {} throughout (per plan)',
    ],
  },
  {
    query: '10 foot ceilings',
    family: 'catalogue',
    section: 'interior',
    prevalence: 0.15,
    variants: ["10' ceilings", '10-foot ceilings'],
    contexts: ['Soaring {} on penthouse levels', '{} in select suites'],
  },
  {
    query: 'floor-to-ceiling windows',
    family: 'catalogue',
    section: 'interior',
    prevalence: 0.5,
    variants: ['floor-to-ceiling windows', 'floor to ceiling windows'],
    contexts: ['Expansive {} with low-E glazing', '{} in living areas (per plan)'],
  },
  {
    query: 'engineered hardwood',
    family: 'catalogue',
    section: 'interior',
    prevalence: 0.55,
    variants: ['engineered hardwood'],
    contexts: ['Wide-plank {} flooring in living areas', '{} flooring throughout, excluding bathrooms'],
  },
  {
    query: 'heated floors',
    family: 'catalogue',
    section: 'bath',
    prevalence: 0.15,
    variants: ['heated floors', 'in-floor heating'],
    contexts: ['Electric {} in primary ensuite', 'Radiant {} in all bathrooms'],
  },
  {
    query: 'pot lights',
    family: 'catalogue',
    section: 'interior',
    prevalence: 0.35,
    variants: ['pot lights', 'pot-lights', 'recessed lighting'],
    contexts: ['LED {} in kitchen and living area', 'Dimmable {} throughout'],
  },
  {
    query: 'walk-in closet',
    family: 'catalogue',
    section: 'interior',
    prevalence: 0.4,
    variants: ['walk-in closet', 'walk in closet'],
    contexts: ['{} in primary bedroom (per plan)'],
  },
  {
    query: 'smart home',
    family: 'catalogue',
    section: 'interior',
    prevalence: 0.3,
    variants: ['smart home', 'smart-home'],
    contexts: ['{} automation with app-controlled thermostat', 'Integrated {} hub with voice control'],
  },
  {
    query: 'keyless entry',
    family: 'catalogue',
    section: 'interior',
    prevalence: 0.2,
    variants: ['keyless entry', 'keyless-entry'],
    contexts: ['Digital {} suite door lock'],
  },
  {
    query: 'heat pump',
    family: 'catalogue',
    section: 'building',
    prevalence: 0.1,
    variants: ['heat pump'],
    contexts: ['Energy-efficient {} heating and cooling, individually controlled'],
  },
  {
    query: 'rain shower',
    family: 'catalogue',
    section: 'bath',
    prevalence: 0.25,
    variants: ['rain shower', 'rainfall shower'],
    contexts: ['Oversized {} head with handheld wand', 'Frameless glass enclosure with {}'],
  },
  {
    query: 'EV charging',
    family: 'catalogue',
    section: 'building',
    prevalence: 0.35,
    variants: ['EV charging', 'electric vehicle charging', 'EV chargers'],
    contexts: ['{} available in the underground garage', 'Roughed-in {} for select parking spaces'],
  },
  {
    query: '24-hour concierge',
    family: 'catalogue',
    section: 'amenity',
    prevalence: 0.5,
    variants: ['24-hour concierge', '24/7 concierge', '24 hour concierge'],
    contexts: ['Grand lobby with {}', '{} and secure parcel room'],
  },
  {
    query: 'rooftop pool',
    family: 'catalogue',
    section: 'amenity',
    prevalence: 0.08,
    variants: ['rooftop pool', 'roof-top pool'],
    contexts: ['Heated {} with cabanas'],
  },
  {
    query: 'pet spa',
    family: 'catalogue',
    section: 'amenity',
    prevalence: 0.1,
    variants: ['pet spa'],
    contexts: ['{} and off-leash dog run'],
  },
  {
    query: 'co-working',
    family: 'catalogue',
    section: 'amenity',
    prevalence: 0.3,
    variants: ['co-working', 'coworking'],
    contexts: ['{} lounge with private meeting rooms'],
  },
  {
    query: 'guest suite',
    family: 'catalogue',
    section: 'amenity',
    prevalence: 0.25,
    variants: ['guest suite', 'guest suites'],
    contexts: ['Furnished {} for visiting family'],
  },
  {
    query: 'bike storage',
    family: 'catalogue',
    section: 'amenity',
    prevalence: 0.3,
    variants: ['bike storage', 'bicycle storage'],
    contexts: ['Secure {} with repair station'],
  },
  {
    query: 'party room',
    family: 'catalogue',
    section: 'amenity',
    prevalence: 0.45,
    variants: ['party room'],
    contexts: ['{} with catering kitchen and private dining'],
  },
  {
    query: 'golf simulator',
    family: 'catalogue',
    section: 'amenity',
    prevalence: 0.05,
    variants: ['golf simulator'],
    contexts: ['{} and games lounge'],
  },
  {
    query: 'development charges capped',
    family: 'catalogue',
    section: 'incentive',
    prevalence: 0.4,
    variants: ['development charges capped', 'Development charges capped'],
    contexts: ['{} at {cap}', '{} at {cap} for condominium suites'],
  },
  {
    query: 'free assignment',
    family: 'catalogue',
    section: 'incentive',
    prevalence: 0.3,
    variants: ['free assignment', 'FREE assignment'],
    contexts: ['{} prior to registration', '{} (a value of $10,000)'],
  },
  {
    query: 'assignment fee',
    family: 'catalogue',
    section: 'incentive',
    prevalence: 0.3,
    variants: ['assignment fee'],
    contexts: ['Reduced {} of $5,000 + HST', 'Legal {} waived for the first assignment'],
  },
  {
    query: 'right to lease during occupancy',
    family: 'catalogue',
    section: 'incentive',
    prevalence: 0.25,
    variants: ['right to lease during occupancy'],
    contexts: ['Purchaser has the {}', '{} (interim occupancy period)'],
  },
  {
    query: 'cash back',
    family: 'catalogue',
    section: 'incentive',
    prevalence: 0.1,
    variants: ['cash back', 'cash-back'],
    contexts: ['$15,000 {} on final closing'],
  },
  {
    query: 'free parking',
    family: 'catalogue',
    section: 'incentive',
    prevalence: 0.12,
    variants: ['free parking', 'FREE parking'],
    contexts: ['{} with every two-bedroom suite'],
  },
  {
    query: 'extended deposit structure',
    family: 'catalogue',
    section: 'incentive',
    prevalence: 0.2,
    variants: ['extended deposit structure'],
    contexts: ['{} for the first 25 purchasers'],
  },
  {
    query: '$5,000 on signing',
    family: 'catalogue',
    section: 'deposit',
    prevalence: 0.45,
    variants: ['$5,000 on signing'],
    contexts: ['{}'],
  },
  {
    query: '5% in 90 days',
    family: 'catalogue',
    section: 'deposit',
    prevalence: 0.4,
    variants: ['5% in 90 days'],
    contexts: ['{}'],
  },
  // The spelling families: spellings found by rule, not by the synonym file. Appended, so the
  // catalogue's mark characters and the deposit indices in sales.ts stay as they are.
  {
    query: 'underground parking',
    family: 'split-word',
    section: 'building',
    prevalence: 0.3,
    variants: ['underground parking', 'under ground parking', 'under-ground parking'],
    contexts: ['Secure {} with visitor spaces'],
  },
  {
    query: 'skylights',
    family: 'split-word',
    section: 'interior',
    prevalence: 0.2,
    variants: ['skylights', 'sky lights', 'sky-lights'],
    contexts: ['Operable {} in penthouse suites'],
  },
  {
    query: 'soft-close drawers',
    family: 'compound',
    section: 'kitchen',
    prevalence: 0.35,
    variants: ['soft-close drawers', 'soft close drawers', 'softclose drawers'],
    contexts: ['Lacquered cabinetry with {}'],
  },
  {
    query: 'walk-out terrace',
    family: 'compound',
    section: 'interior',
    prevalence: 0.25,
    variants: ['walk-out terrace', 'walkout terrace', 'walk out terrace'],
    contexts: ['Ground-floor suites with a private {}'],
  },
  {
    query: '12,500 sq ft of amenity space',
    family: 'number',
    section: 'amenity',
    prevalence: 0.3,
    variants: [
      '12,500 sq. ft. of amenity space',
      '12 500 sq ft of amenity space',
      '12500 sq ft of amenity space',
      '12,500 square feet of amenity space',
    ],
    contexts: ['Over {} on two levels'],
    // `12 500` printed with a plain space may be two numbers (src/search/text/normalize.ts, "How numbers
    // are read"), so `500 sq ft of amenity space` is one of its readings, not a trap.
    traps: ['2 500 sq ft of amenity space', '2,500 sq ft of amenity space', '12 sq ft of amenity space'],
  },
  {
    query: '2.5 storey townhomes',
    family: 'number',
    section: 'building',
    prevalence: 0.25,
    variants: ['2.5-storey townhomes', '2 1/2 storey townhomes', '2.5 storey townhomes'],
    contexts: ['{} along the landscaped mews'],
    traps: ['5 storey townhomes', '1/2 storey townhomes', '2 storey townhomes'],
  },
  {
    query: '12 ft wide balconies',
    family: 'abbreviation',
    section: 'interior',
    prevalence: 0.3,
    variants: [
      '12 ft. wide balconies',
      "12' wide balconies",
      '12-ft. wide balconies',
      '12 ft wide balconies',
    ],
    contexts: ['Private {} (per plan)'],
    traps: ['2 ft wide balconies'],
  },
  {
    query: 'St. Lawrence Market',
    family: 'abbreviation',
    section: 'building',
    prevalence: 0.2,
    variants: ['St. Lawrence Market', 'St Lawrence Market'],
    contexts: ['Steps to {} and the waterfront trail'],
  },
  {
    query: 'massage therapist',
    family: 'near-miss',
    section: 'amenity',
    prevalence: 0.2,
    variants: ['massage therapist'],
    contexts: ['Wellness suite with a visiting {}'],
    // A join of `the` and `rapist` would find every therapist.
    traps: ['the rapist', 'massage the rapist'],
  },
];

/** A concept's queries: the catalogue's by its query, a rule family's by every spelling. */
export function conceptQueries(c: Concept): string[] {
  return c.family === 'catalogue' ? [c.query] : [...new Set([c.query, ...c.variants])];
}

/**
 * Sentences every fact sheet prints whose word pairs a careless rule would read as one word
 * (`every one` as `everyone`): the queries must find nothing, the sentences themselves must be
 * found (so the trap is really in the corpus). No catalogue phrase may appear in them.
 */
export const NEAR_MISS_TEXTS: readonly { text: string; present: string; trap: string }[] = [
  {
    text: 'Designed so that every one of our residents finds a quiet corner',
    present: 'every one of our residents',
    trap: 'everyone',
  },
  {
    text: 'No table reservations are needed in the media lounge',
    present: 'no table reservations',
    trap: 'notable',
  },
  { text: 'Materials chosen to last for ever', present: 'to last for ever', trap: 'forever' },
];

/** Plausible searches that no generated document answers. The generator never writes these words. */
export const ABSENT_CONCEPTS: readonly string[] = [
  'heated driveway',
  'private elevator',
  'sauna',
  'bidet',
  'wine cellar',
];

/** Fact spans travel inside block text between these private-use marks until the PDF is laid out. */
export const FACT_START = '\uE000';
export const FACT_END = '\uE001';
const CONCEPT_BASE = 0xe100;
/**
 * Printed values (sizes and prices: `area` and `money` in src/demo/corpus/story.ts) are facts too,
 * each its own query: the `table` family's ground truth. Their marks follow the concepts'.
 */
const VALUE_BASE = 0xe400;
const MAX_VALUES = 0x1000;
const VALUES: string[] = [];
const VALUE_INDEX = new Map<string, number>();

/** Text for `concept` at the `{}` of a context, marked so the layout can report where it landed. */
export function mention(conceptIndex: number, variant: string): string {
  return `${FACT_START}${String.fromCharCode(CONCEPT_BASE + conceptIndex)}${variant}${FACT_END}`;
}

/** A printed value (`850 sq. ft.`, `$749,900`), marked so the layout reports where it landed. */
export function valueMention(value: string): string {
  let index = VALUE_INDEX.get(value);
  if (index === undefined) {
    index = VALUES.length;
    if (index >= MAX_VALUES) throw new Error(`more than ${MAX_VALUES} distinct printed values`);
    VALUES.push(value);
    VALUE_INDEX.set(value, index);
  }
  return `${FACT_START}${String.fromCharCode(VALUE_BASE + index)}${value}${FACT_END}`;
}

/** The query a fact mark stands for: a concept's, or a printed value itself. */
export function queryOfMark(mark: string): string {
  const code = mark.charCodeAt(0);
  return code >= VALUE_BASE ? VALUES[code - VALUE_BASE] : CONCEPTS[code - CONCEPT_BASE].query;
}

/** Removes the fact marks (for measuring and drawing). */
export function stripMarks(text: string): string {
  return text.replace(/\uE000[\uE100-\uE1FF\uE400-\uF3FF]|\uE001/g, '');
}
