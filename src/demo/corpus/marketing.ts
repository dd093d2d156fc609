import type { Block } from './render.js';
import { NEAR_MISS_TEXTS } from './concepts.js';
import {
  allPlans,
  area,
  FILLER,
  mentioned,
  money,
  monthsBefore,
  say,
  suiteType,
  type DraftDocument,
  type ProjectStory,
} from './story.js';

/** Brochures, features-and-finishes sheets and fact sheets: the descriptive documents. */

const TRANSIT: Record<string, string> = {
  Toronto: 'steps from the TTC subway and streetcar lines',
  Mississauga: 'on the Hurontario LRT line, minutes from Square One',
  Vaughan: 'a short walk from the VMC subway station',
  Oakville: 'minutes from the Oakville GO station and the QEW',
  Markham: 'close to the Unionville GO station and Highway 407',
  Ottawa: 'near an O-Train station on the Confederation Line',
  Vancouver: 'a short walk from the Canada Line SkyTrain',
  Burnaby: 'next to the Expo Line SkyTrain',
  Calgary: 'steps from the CTrain',
  Hamilton: 'minutes from the West Harbour GO station',
  Montreal: 'a short walk from the Métro and the REM',
};

const WARRANTY: Record<string, string> = {
  ON: 'Every suite is enrolled with Tarion, which backs the one-year, two-year and seven-year new home warranty.',
  BC: 'Every home is covered by the 2-5-10 home warranty required under the Homeowner Protection Act.',
  AB: 'Every home carries the Alberta New Home Warranty: one year on materials, five years on the building envelope and ten years structural.',
  QC: 'Every unit is protected by the Garantie de construction résidentielle (GCR) plan.',
};

function season(occupancy: string): string {
  const [year, month] = occupancy.split('-').map(Number) as [number, number];
  const name = month <= 2 || month === 12 ? 'Winter' : month <= 5 ? 'Spring' : month <= 8 ? 'Summer' : 'Fall';
  return `${name} ${month === 12 ? year + 1 : year}`;
}

function sizes(story: ProjectStory): string {
  const plans = allPlans(story.project);
  const min = Math.min(...plans.map((p) => p.interiorSqft));
  const max = Math.max(...plans.map((p) => p.interiorSqft));
  return `${min.toLocaleString('en-CA')} to ${area(max)}`;
}

function suiteRange(story: ProjectStory): string {
  const plans = [...allPlans(story.project)].sort((a, b) => a.bedrooms - b.bedrooms || a.dens - b.dens);
  const types = [...new Set(plans.map(suiteType))];
  return types.length === 1 ? types[0] : `${types[0]} to ${types[types.length - 1]}`;
}

function statusLine(story: ProjectStory): string {
  const { salesStatus, occupancyDate, constructionStatus } = story.project;
  const sales =
    salesStatus === 'coming-soon' ? 'Coming soon' : salesStatus === 'selling' ? 'Now selling' : 'Sold out';
  const occupancy =
    constructionStatus === 'completed' ? 'move-in ready' : `estimated occupancy ${season(occupancyDate)}`;
  return `${sales} - ${occupancy}`;
}

/** Mentions of a section mixed with filler statements, in a stable shuffled order. */
function bulletList(
  story: ProjectStory,
  concepts: number[],
  filler: string[],
  fillerCount: number,
): string[] {
  const items = [...concepts.map((i) => say(story, i)), ...story.rng.sample(filler, fillerCount)];
  return story.rng.shuffle(items);
}

export function brochure(story: ProjectStory): DraftDocument {
  const { project, rng } = story;
  const street = project.address.replace(/^\d+\s+/, '');
  const highlights = rng.sample(
    [...mentioned(story, 'kitchen'), ...mentioned(story, 'interior')],
    rng.int(2, 4),
  );
  const amenities = mentioned(story, 'amenity');
  const developerYears = rng.int(12, 55);
  const blocks: Block[] = [
    {
      kind: 'title',
      text: project.name,
      subtitle: `${project.address}, ${project.city}, ${project.province}`,
    },
    {
      kind: 'paragraph',
      text: `Rising ${project.storeys} storeys above ${street}, ${project.name} brings ${project.totalUnits} thoughtfully designed homes to ${project.city}. ${statusLine(story)}.`,
    },
    { kind: 'paragraph', text: `Presented by ${project.developerName}.` },
    { kind: 'heading', text: 'The Suites' },
    {
      kind: 'paragraph',
      text: `Choose from ${suiteRange(story).toLowerCase()} layouts ranging from ${sizes(story)}, priced from ${money(project.priceMin)}. Interiors by ${story.interiorDesigner} pair warm natural materials with clean modern lines.`,
    },
    { kind: 'bullets', items: bulletList(story, highlights, FILLER.interior, 2) },
    { kind: 'pageBreak' },
    { kind: 'heading', text: 'Amenities' },
    {
      kind: 'paragraph',
      text: `More than ${(rng.int(8, 30) * 1000).toLocaleString('en-CA')} square feet of indoor and outdoor amenity space, designed for the way you live - work, unwind and entertain without leaving home.`,
    },
    { kind: 'bullets', items: bulletList(story, amenities, FILLER.amenity, rng.int(3, 5)) },
    { kind: 'heading', text: 'The Neighbourhood' },
    {
      kind: 'paragraph',
      text: `${project.name} is ${TRANSIT[project.city] ?? 'well served by transit'}, with a Walk Score of ${rng.int(72, 98)}. Cafés, groceries, parks and schools are all within a few minutes' walk.`,
    },
    { kind: 'pageBreak' },
    { kind: 'heading', text: `About ${project.developerName}` },
    {
      kind: 'paragraph',
      text: `For ${developerYears} years, ${project.developerName} has built award-winning communities across Canada, with more than ${(rng.int(4, 40) * 500).toLocaleString('en-CA')} homes delivered. Architecture by ${story.architect.replace(/\.$/, '')}.`,
    },
    {
      kind: 'note',
      text: "Illustrations are artist's concept only. Prices, specifications, sizes and materials are subject to change without notice. E.&O.E.",
    },
  ];
  return {
    category: 'brochure',
    type: 'Sales Brochure',
    stem: 'brochure',
    date: monthsBefore(story.asOf, rng.int(3, 9)),
    dated: false,
    blocks,
    hasTables: false,
  };
}

export function featuresAndFinishes(story: ProjectStory): DraftDocument {
  const { project, rng } = story;
  const blocks: Block[] = [
    { kind: 'title', text: 'Features & Finishes', subtitle: project.name },
    { kind: 'heading', text: 'Suite Features' },
    {
      kind: 'bullets',
      items: bulletList(story, mentioned(story, 'interior'), FILLER.interior, rng.int(3, 5)),
    },
    { kind: 'heading', text: 'Kitchen' },
    { kind: 'bullets', items: bulletList(story, mentioned(story, 'kitchen'), FILLER.kitchen, rng.int(2, 4)) },
    { kind: 'heading', text: 'Bathrooms' },
    { kind: 'bullets', items: bulletList(story, mentioned(story, 'bath'), FILLER.bath, rng.int(3, 5)) },
    { kind: 'heading', text: 'Building Features' },
    {
      kind: 'bullets',
      items: bulletList(story, mentioned(story, 'building'), FILLER.building, rng.int(2, 4)),
    },
    { kind: 'heading', text: 'Warranty' },
    { kind: 'paragraph', text: WARRANTY[project.province] ?? WARRANTY.ON },
    {
      kind: 'note',
      text: "All features and finishes are from the vendor's standard samples and are subject to change. Ceiling heights are approximate and exclude bulkheads and dropped areas. E.&O.E.",
    },
  ];
  return {
    category: 'features-finishes',
    type: 'Features & Finishes',
    stem: 'features-finishes',
    date: monthsBefore(story.asOf, rng.int(2, 8)),
    dated: false,
    blocks,
    hasTables: false,
  };
}

export function factSheet(story: ProjectStory): DraftDocument {
  const { project, rng } = story;
  const amenities = [
    ...mentioned(story, 'amenity').map((i) => say(story, i)),
    ...rng.sample(FILLER.amenity, 2),
  ].join('; ');
  const rows: [string, string][] = [
    ['Developer', project.developerName],
    ['Architect', story.architect],
    ['Interior design', story.interiorDesigner],
    ['Address', `${project.address}, ${project.city}, ${project.province}`],
    ['Height', `${project.storeys} storeys`],
    ['Total homes', String(project.totalUnits)],
    ['Suites', `${suiteRange(story)}, ${sizes(story)}`],
    ['Prices', `From ${money(project.priceMin)}`],
    [
      'Occupancy',
      project.constructionStatus === 'completed'
        ? 'Completed, move-in ready'
        : `Estimated ${season(project.occupancyDate)}`,
    ],
    [
      'Maintenance',
      `Approx. $${story.maintenancePerSqft.toFixed(2)} per sq. ft. per month, excluding hydro and water`,
    ],
    ['Parking', money(story.parkingPrice)],
    ['Locker', money(story.lockerPrice)],
    ['Amenities', amenities],
  ];
  for (const index of mentioned(story, 'building')) rows.push(['Building', say(story, index)]);
  rows.push(['Notes', `${NEAR_MISS_TEXTS.map((n) => n.text).join('. ')}.`]);
  const registered = project.buildings.map((b) => b.condoCorpNumber).filter((n): n is string => n !== null);
  if (registered.length > 0) rows.push(['Condominium', registered.join(', ')]);
  return {
    category: 'fact-sheet',
    type: 'Fact Sheet',
    stem: 'fact-sheet',
    date: monthsBefore(story.asOf, rng.int(0, 4)),
    dated: false,
    blocks: [
      { kind: 'title', text: 'Fact Sheet', subtitle: project.name },
      { kind: 'fields', rows },
      { kind: 'note', text: 'Information is believed accurate but not guaranteed. E.&O.E.' },
    ],
    hasTables: false,
  };
}
