import type { DemoFloorPlan } from '../dataset.js';
import { CONCEPTS, mention, valueMention } from './concepts.js';
import type { Block, TableColumn } from './render.js';
import {
  allPlans,
  area,
  FILLER,
  isoMonth,
  mentioned,
  money,
  monthsBefore,
  monthYear,
  say,
  suiteType,
  type DraftDocument,
  type ProjectStory,
} from './story.js';

/** Price lists, hot lists, deposit structures, incentive notices and the odd form: the sales kit. */

const DEPOSIT_5K = CONCEPTS.findIndex((c) => c.query === '$5,000 on signing');
const DEPOSIT_90 = CONCEPTS.findIndex((c) => c.query === '5% in 90 days');

/** The deposit schedule, as the lines a deposit sheet lists; mentions marked. */
function depositSchedule(story: ProjectStory): string[] {
  const [third, fourth] = story.depositDays;
  const lines = [
    story.mentions.has(DEPOSIT_5K)
      ? mention(DEPOSIT_5K, '$5,000 on signing')
      : `${money(story.signingDeposit)} on signing`,
    'Balance to 5% in 30 days',
    story.mentions.has(DEPOSIT_90) ? mention(DEPOSIT_90, '5% in 90 days') : `5% in ${third} days`,
    `5% in ${fourth} days`,
  ];
  if (story.depositOnOccupancy) lines.push('5% on occupancy');
  return lines;
}

/** The signing amount and the balance to 5% make up the first 5%; every later line is another 5%. */
function total(schedule: string[]): number {
  return 5 * (schedule.length - 1);
}

const PRICE_COLUMNS: TableColumn[] = [
  { header: 'Plan', width: 0.16 },
  { header: 'Model', width: 0.1 },
  { header: 'Type', width: 0.2 },
  { header: 'Interior', width: 0.14, align: 'right' },
  { header: 'Outdoor', width: 0.11, align: 'right' },
  { header: 'Exp.', width: 0.07 },
  { header: 'Floors', width: 0.09 },
  { header: 'From', width: 0.13, align: 'right' },
];

function priceRow(plan: DemoFloorPlan, price: number): string[] {
  return [
    plan.name,
    plan.model,
    suiteType(plan),
    area(plan.interiorSqft),
    plan.exteriorSqft ? String(plan.exteriorSqft) : '-',
    plan.exposure,
    plan.floorMin === plan.floorMax ? String(plan.floorMin) : `${plan.floorMin}-${plan.floorMax}`,
    money(price),
  ];
}

/**
 * The price list; with `monthsEarlier` an older revision, when prices were lower by a few
 * percent (a superseded list a historical search can still find).
 */
export function priceList(story: ProjectStory, monthsEarlier = 0): DraftDocument {
  const { project, rng } = story;
  const date = monthsBefore(story.asOf, monthsEarlier);
  const factor = monthsEarlier === 0 ? 1 : 1 - rng.int(3, 8) / 100;
  const blocks: Block[] = [
    { kind: 'title', text: `${project.name} Price List`, subtitle: `Effective ${monthYear(date)}` },
  ];
  for (const building of project.buildings) {
    if (project.buildings.length > 1) blocks.push({ kind: 'heading', text: building.name });
    blocks.push({
      kind: 'table',
      columns: PRICE_COLUMNS,
      rows: building.floorPlans.map((plan) =>
        priceRow(plan, Math.round((plan.startPrice * factor) / 1000) * 1000 - 100),
      ),
    });
  }
  const schedule = depositSchedule(story);
  blocks.push(
    { kind: 'heading', text: 'Deposit Structure' },
    { kind: 'paragraph', text: `${schedule.join('; ')}. Total deposit: ${total(schedule)}%.` },
    {
      kind: 'paragraph',
      text: `Parking ${money(story.parkingPrice)}. Locker ${money(story.lockerPrice)}. Maintenance fees approx. $${story.maintenancePerSqft.toFixed(2)}/sq. ft. Interior areas are approximate; outdoor areas in square feet.`,
    },
    { kind: 'note', text: 'Prices and availability are subject to change without notice. E.&O.E.' },
  );
  return {
    category: 'price-list',
    type: 'Price List',
    stem: `price-list-${isoMonth(date)}`,
    date,
    dated: true,
    blocks,
    hasTables: true,
  };
}

export function hotList(story: ProjectStory): DraftDocument {
  const { project, rng } = story;
  const rows = rng.sample(allPlans(project), rng.int(5, 9)).map((plan) => {
    const floor = rng.int(plan.floorMin, plan.floorMax);
    const unit =
      plan.stacks.length > 0 ? `${floor}${rng.pick(plan.stacks)}` : (plan.unitNumbers[0] ?? plan.model);
    const was = plan.startPrice + (floor - plan.floorMin) * 2000;
    return [
      unit,
      plan.name,
      suiteType(plan),
      area(plan.interiorSqft),
      plan.exposure,
      money(was),
      money(was - rng.int(2, 6) * 5000),
    ];
  });
  const incentive = rng.sample(mentioned(story, 'incentive'), 1)[0];
  const blocks: Block[] = [
    {
      kind: 'title',
      text: 'Hot List',
      subtitle: `${project.name} - limited suites, ${monthYear(story.asOf)}`,
    },
    {
      kind: 'table',
      columns: [
        { header: 'Suite', width: 0.12 },
        { header: 'Plan', width: 0.16 },
        { header: 'Type', width: 0.2 },
        { header: 'Size', width: 0.14, align: 'right' },
        { header: 'Exp.', width: 0.08 },
        { header: 'Was', width: 0.15, align: 'right' },
        { header: 'Now', width: 0.15, align: 'right' },
      ],
      rows,
    },
  ];
  if (incentive !== undefined)
    blocks.push({ kind: 'paragraph', text: `Hot list bonus: ${say(story, incentive)}.` });
  blocks.push({
    kind: 'note',
    text: 'Suites are subject to prior sale. Call the presentation centre to reserve. E.&O.E.',
  });
  return {
    category: 'hot-list',
    type: 'Hot List',
    stem: `hot-list-${isoMonth(story.asOf)}`,
    date: story.asOf,
    dated: true,
    blocks,
    hasTables: true,
  };
}

/**
 * Columns a suite mix sets side by side, as the price lists the service's users read: a suite
 * number of one to four digits right beside its size, then bedrooms, baths, exposure, the price
 * and the floor, so numbers of every length stand next to sizes and comma-grouped prices.
 */
const SUITE_MIX_COLUMNS: TableColumn[] = [
  { header: 'Suite', width: 0.12 },
  { header: 'Size', width: 0.18, align: 'right' },
  { header: 'Beds', width: 0.1, align: 'right' },
  { header: 'Baths', width: 0.1, align: 'right' },
  { header: 'Exp.', width: 0.1 },
  { header: 'Price', width: 0.2, align: 'right' },
  { header: 'Floor', width: 0.1, align: 'right' },
];

const DEPOSIT_COLUMNS: TableColumn[] = [
  { header: 'No.', width: 0.1, align: 'right' },
  { header: 'Amount', width: 0.22, align: 'right' },
  { header: 'Days', width: 0.12, align: 'right' },
  { header: 'Due', width: 0.4 },
];

/** A suite number of one to four digits: townhome `7`, `12`; floor and stack `805`, `1204`. */
function suiteNumber(plan: DemoFloorPlan, floor: number, rng: ProjectStory['rng']): string {
  if (plan.model.startsWith('TH')) return String(rng.int(1, 40));
  const stack = plan.stacks.length > 0 ? rng.pick(plan.stacks) : String(rng.int(1, 12)).padStart(2, '0');
  return `${floor}${stack}`;
}

/**
 * The suite mix: a table of individual suites (suite, size, bedrooms, baths, exposure, price,
 * floor) and the deposit schedule for the first of them as amounts beside day counts. Its `traps`
 * are what reading two neighbouring columns as one number would find.
 */
export function suiteMix(story: ProjectStory): DraftDocument {
  const { project, rng } = story;
  const traps: string[] = [];
  const suites = rng.sample(allPlans(project), Math.min(8, allPlans(project).length)).map((plan) => {
    const floor = rng.int(plan.floorMin, plan.floorMax);
    const suite = suiteNumber(plan, floor, rng);
    const price = plan.startPrice + (floor - plan.floorMin) * 2500;
    // The suite number beside a size under 1,000 (`Unit 12` ⇥ `450 sq ft` is not `12,450 sq ft`),
    // the price beside the floor (`$749,900` ⇥ `12` is not `$749,900 12`).
    if (plan.interiorSqft < 1000)
      traps.push(`${(Number(suite) * 1000 + plan.interiorSqft).toLocaleString('en-CA')} sq ft`);
    traps.push(`$${price.toLocaleString('en-CA')} ${floor}`);
    return { plan, floor, suite, price };
  });
  const rows = suites.map(({ plan, floor, suite, price }) => [
    suite,
    area(plan.interiorSqft),
    String(plan.bedrooms),
    String(plan.bathrooms),
    plan.exposure,
    money(price),
    String(floor),
  ]);
  const first = suites[0];
  // A share of the suite's price to the dollar (`$37,495`): amounts no other text prints.
  const instalment = (share: number) => Math.round(first.price * share);
  const [third, fourth] = story.depositDays;
  const deposits: [number, number, string][] = [
    [instalment(0.025), 0, 'On signing'],
    [instalment(0.025), 30, 'Balance to 5%'],
    [instalment(0.05), 90, '5%'],
    [instalment(0.05), third, '5%'],
    [instalment(0.05), fourth, '5%'],
  ];
  for (const [amount, days] of deposits) traps.push(`$${amount.toLocaleString('en-CA')} ${days}`);
  return {
    category: 'price-list',
    type: 'Suite Mix',
    stem: 'suite-mix',
    date: story.asOf,
    dated: false,
    blocks: [
      { kind: 'title', text: 'Suite Mix', subtitle: `${project.name} - available suites` },
      { kind: 'table', columns: SUITE_MIX_COLUMNS, rows },
      { kind: 'heading', text: `Deposit Schedule - Suite ${first.suite}` },
      {
        kind: 'table',
        columns: DEPOSIT_COLUMNS,
        rows: deposits.map(([amount, days, due], i) => [
          String(i + 1),
          valueMention(`$${amount.toLocaleString('en-CA')}`),
          String(days),
          due,
        ]),
      },
      { kind: 'note', text: 'Sizes are approximate. Prices and availability are subject to change. E.&O.E.' },
    ],
    hasTables: true,
    traps,
  };
}

export function depositStructure(story: ProjectStory): DraftDocument {
  const { project, rng } = story;
  const schedule = depositSchedule(story);
  const hasTowns = project.buildings.some((b) => b.floorPlans.some((p) => p.model.startsWith('TH')));
  const blocks: Block[] = [
    { kind: 'title', text: 'Deposit Structure', subtitle: project.name },
    { kind: 'heading', text: hasTowns && project.buildings.length === 1 ? 'Townhomes' : 'Suites' },
    { kind: 'bullets', items: schedule },
    { kind: 'paragraph', text: `Total deposit: ${total(schedule)}% of the purchase price.` },
    { kind: 'heading', text: 'International Purchasers' },
    {
      kind: 'paragraph',
      text: `${money(story.signingDeposit * 2)} on signing, balance to 10% in 30 days, 10% in 90 days, 10% in 180 days and 5% on occupancy (35% in total).`,
    },
    { kind: 'heading', text: 'Payment' },
    {
      kind: 'paragraph',
      text: `Deposit cheques are payable to ${story.lawFirm}, in Trust. Post-dated cheques are required at signing. Deposits are held in trust in accordance with the ${project.province === 'ON' ? 'Condominium Act, 1998' : 'applicable provincial legislation'}.`,
    },
  ];
  if (rng.chance(0.5))
    blocks.push({ kind: 'note', text: 'The deposit structure may change without notice. E.&O.E.' });
  return {
    category: 'deposit-structure',
    type: 'Deposit Structure',
    stem: 'deposit-structure',
    date: monthsBefore(story.asOf, rng.int(0, 3)),
    dated: false,
    blocks,
    hasTables: false,
  };
}

/**
 * The incentive notice. An older notice (`previous`) offered a slightly different set: one current
 * incentive missing and one that has since been withdrawn, so some mentions exist only in history.
 */
export function incentives(story: ProjectStory, previous?: { monthsEarlier: number }): DraftDocument {
  const { project, rng } = story;
  let offered = mentioned(story, 'incentive');
  if (previous) {
    const withdrawn = CONCEPTS.map((c, i) =>
      c.section === 'incentive' && !story.mentions.has(i) ? i : -1,
    ).filter((i) => i >= 0);
    offered = [...rng.sample(offered, Math.max(0, offered.length - 1)), ...rng.sample(withdrawn, 1)].sort(
      (a, b) => a - b,
    );
  }
  const date = monthsBefore(story.asOf, previous?.monthsEarlier ?? 0);
  const until = monthsBefore(date, -2);
  const title = rng.pick([
    'Limited-Time Incentives',
    'Platinum VIP Incentives',
    'Broker & Purchaser Incentives',
  ]);
  const blocks: Block[] = [
    { kind: 'title', text: title, subtitle: `${project.name} - valid until ${monthYear(until)}` },
    {
      kind: 'paragraph',
      text: `For agreements of purchase and sale at ${project.name} signed between ${monthYear(date)} and ${monthYear(until)}, purchasers receive:`,
    },
    {
      kind: 'bullets',
      items: rng.shuffle([
        ...offered.map((i) => say(story, i)),
        ...rng.sample(FILLER.incentive, rng.int(1, 3)),
      ]),
    },
    {
      kind: 'note',
      text: 'Incentives are not retroactive, cannot be exchanged for cash and may be withdrawn at any time. E.&O.E.',
    },
  ];
  return {
    category: 'incentives',
    type: 'Incentive Notice',
    stem: `incentives-${isoMonth(date)}`,
    date,
    dated: true,
    blocks,
    hasTables: false,
  };
}

export function purchaserWorksheet(story: ProjectStory): DraftDocument {
  const blank = '______________________________';
  return {
    category: 'other',
    type: 'Purchaser Worksheet',
    stem: 'purchaser-worksheet',
    date: story.asOf,
    dated: false,
    blocks: [
      { kind: 'title', text: 'Purchaser Worksheet', subtitle: story.project.name },
      {
        kind: 'fields',
        rows: [
          ['Purchaser name', blank],
          ['Co-purchaser', blank],
          ['Email', blank],
          ['Suite choice 1', blank],
          ['Suite choice 2', blank],
          ['Parking (Y/N)', blank],
          ['Locker (Y/N)', blank],
          ['Agent / brokerage', blank],
        ],
      },
      {
        kind: 'note',
        text: 'A worksheet is not an offer. Suites are allocated in the order worksheets are received.',
      },
    ],
    hasTables: false,
  };
}

export function floorPlansPackage(story: ProjectStory): DraftDocument {
  const blocks: Block[] = [{ kind: 'title', text: 'Floor Plans', subtitle: story.project.name }];
  for (const plan of allPlans(story.project)) {
    blocks.push(
      { kind: 'heading', text: `${plan.name} (${plan.model})` },
      {
        kind: 'paragraph',
        text: `${suiteType(plan)}, ${plan.bathrooms} bath. Interior ${area(plan.interiorSqft)}, outdoor ${area(plan.exteriorSqft)}. ${plan.exposure} exposure, floors ${plan.floorMin}-${plan.floorMax}.`,
      },
    );
  }
  return {
    category: 'other',
    type: 'Floor Plans Package',
    stem: 'floor-plans',
    date: story.asOf,
    dated: false,
    blocks,
    hasTables: false,
  };
}

export function agreementSchedules(story: ProjectStory): DraftDocument {
  return {
    category: 'other',
    type: 'Agreement Schedules',
    stem: 'agreement-schedules',
    date: story.asOf,
    dated: false,
    blocks: [
      {
        kind: 'title',
        text: 'Schedules to the Agreement of Purchase and Sale',
        subtitle: story.project.name,
      },
      {
        kind: 'paragraph',
        text: 'Schedule A sets out the purchase price adjustments, Schedule B the deposit terms and Schedule C the features of the unit. This document is provided to purchasers and their lawyers only.',
      },
    ],
    hasTables: false,
  };
}
