import { roundPrice, towerPlans, townPlans, type PlanContext } from './floor-plans.js';
import { createRng, type Rng } from './prng.js';
import {
  CITIES,
  CONDO_SUFFIXES,
  DEVELOPERS,
  NAME_WORDS,
  PLAN_NAME_THEMES,
  TOWN_SUFFIXES,
  type City,
} from './places.js';

export interface DemoFloorPlan {
  name: string;
  model: string;
  bedrooms: number;
  dens: number;
  bathrooms: number;
  interiorSqft: number;
  exteriorSqft: number;
  /** N, NE, E, SE, S, SW, W or NW. */
  exposure: string;
  floorMin: number;
  floorMax: number;
  /** Suite stacks, the last two digits of a suite number ("04" in 1204). */
  stacks: string[];
  /** The explicit unit schedule when the developer published one; may be empty. */
  unitNumbers: string[];
  startPrice: number;
}

export interface DemoBuilding {
  name: string;
  addresses: string[];
  aliases: string[];
  mlsBuildingKey: string;
  condoCorpNumber: string | null;
  floorPlans: DemoFloorPlan[];
}

export interface DemoProject {
  /** URL slug, unique in the dataset. */
  key: string;
  name: string;
  developerName: string;
  address: string;
  city: string;
  province: string;
  lat: number;
  lng: number;
  constructionStatus: 'pre-construction' | 'under-construction' | 'completed';
  salesStatus: 'coming-soon' | 'selling' | 'sold-out';
  storeys: number;
  totalUnits: number;
  priceMin: number;
  priceMax: number;
  /** YYYY-MM. */
  occupancyDate: string;
  buildings: DemoBuilding[];
}

export interface DemoDataset {
  developers: string[];
  projects: DemoProject[];
}

type ProjectKind = 'condo' | 'towns' | 'mixed';

/** Everything that must stay unique across the dataset while projects are generated in order. */
interface Registry {
  names: Set<string>;
  keys: Set<string>;
  mlsKeys: Set<string>;
  nextCondoCorp: number;
}

/**
 * The demo catalogue: deterministic for a seed, and generated project by project from one stream,
 * so the first N projects are the same whatever `projectCount` is (a 12-project PDF corpus belongs
 * to the first 12 projects of the seeded catalogue).
 */
export function buildDemoDataset(seed = 42, projectCount = 44): DemoDataset {
  const rng = createRng(seed);
  const registry: Registry = { names: new Set(), keys: new Set(), mlsKeys: new Set(), nextCondoCorp: 1850 };
  // The first projects visit distinct cities, so even a small demo spans several markets.
  const openingCities = [CITIES[0], ...rng.shuffle(CITIES.slice(1)).slice(0, 5)];
  const projects: DemoProject[] = [];
  for (let i = 0; i < projectCount; i++) {
    const city =
      openingCities[i] ??
      rng.weighted(
        CITIES,
        CITIES.map((c) => c.weight),
      );
    projects.push(buildProject(rng, city, registry));
  }
  const developers = DEVELOPERS.filter((d) => projects.some((p) => p.developerName === d));
  return { developers, projects };
}

export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/&/g, ' and ')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

const ABBREVIATIONS: Record<string, string> = {
  Street: 'St',
  Avenue: 'Ave',
  Boulevard: 'Blvd',
  Road: 'Rd',
  Drive: 'Dr',
  Parkway: 'Pkwy',
  Trail: 'Trl',
  Highway: 'Hwy',
  West: 'W',
  East: 'E',
  North: 'N',
  South: 'S',
  Ouest: 'O',
};

/** The way listings often spell an address: abbreviated street type and direction, no accents. */
function abbreviate(address: string): string {
  return address
    .split(' ')
    .map((word) => ABBREVIATIONS[word] ?? word)
    .join(' ')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '');
}

interface ProjectNaming {
  name: string;
  /** The first part of the name ("Aria" in "Aria Condos"), reused in marketing aliases. */
  base: string;
  /** The street the name comes from, if it comes from one: the project then stands on it. */
  street: string | null;
}

function nameBase(rng: Rng, city: City): { base: string; street: string | null } {
  const roll = rng.next();
  const named = city.streets.filter((s) => !/\d/.test(s));
  if (roll < 0.45) return { base: rng.pick(NAME_WORDS), street: null };
  if (roll < 0.75 || named.length === 0) return { base: rng.pick(city.neighbourhoods), street: null };
  const street = rng.pick(named);
  const base = street
    .split(' ')
    .filter((word) => !STREET_WORDS.has(word))
    .join(' ');
  return { base, street };
}

/** Street types, directions and French articles: left out when a street lends a project its name. */
const STREET_WORDS = new Set([...Object.keys(ABBREVIATIONS), 'Lane', 'Way', 'Rue', 'du', 'de', 'SW', 'SE']);

function projectName(
  rng: Rng,
  city: City,
  kind: ProjectKind,
  buildingCount: number,
  registry: Registry,
): ProjectNaming {
  const suffixes =
    kind === 'towns'
      ? TOWN_SUFFIXES
      : CONDO_SUFFIXES.filter((s) => (kind === 'condo' && buildingCount === 1) || s !== 'Tower');
  for (let attempt = 0; attempt < 30; attempt++) {
    const { base, street } = nameBase(rng, city);
    const name = `${base} ${rng.pick(suffixes)}`;
    if (!registry.names.has(name)) return { name, base, street };
  }
  const base = `${rng.pick(NAME_WORDS)} ${city.name}`;
  return { name: `${base} ${rng.pick(suffixes)}`, base, street: null };
}

function buildingNames(rng: Rng, kind: ProjectKind, towers: number, project: string): string[] {
  if (kind === 'towns') return towers === 1 ? [project] : ['Block A', 'Block B', 'Block C'].slice(0, towers);
  const scheme = rng.pick([
    ['North Tower', 'South Tower', 'East Tower'],
    ['Tower A', 'Tower B', 'Tower C'],
    ['Phase 1', 'Phase 2', 'Phase 3'],
  ]);
  const names = towers === 1 && kind === 'condo' ? [project] : scheme.slice(0, towers);
  return kind === 'mixed' ? [...names, 'The Townhomes'] : names;
}

function occupancy(rng: Rng, status: DemoProject['constructionStatus']): string {
  const [year, month] =
    status === 'pre-construction'
      ? [rng.int(2028, 2031), rng.int(1, 12)]
      : status === 'under-construction'
        ? [rng.int(2027, 2028), rng.int(1, 12)]
        : [rng.int(2019, 2025), rng.int(1, 12)];
  return `${year}-${String(month).padStart(2, '0')}`;
}

function buildProject(rng: Rng, city: City, registry: Registry): DemoProject {
  const kind = rng.weighted<ProjectKind>(['condo', 'mixed', 'towns'], [60, 25, 15]);
  const towers = kind === 'mixed' ? rng.int(1, 2) : rng.weighted([1, 2, 3], [55, 35, 10]);
  const { name, base, street: namedStreet } = projectName(rng, city, kind, towers, registry);
  registry.names.add(name);
  let key = slugify(name);
  if (registry.keys.has(key)) key = `${key}-${slugify(city.name)}`;
  registry.keys.add(key);

  const constructionStatus = rng.weighted(
    ['pre-construction', 'under-construction', 'completed'] as const,
    [45, 35, 20],
  );
  const salesStatus =
    constructionStatus === 'pre-construction'
      ? rng.weighted(['coming-soon', 'selling'] as const, [30, 70])
      : rng.weighted(
          ['selling', 'sold-out'] as const,
          constructionStatus === 'completed' ? [35, 65] : [70, 30],
        );
  const storeys =
    kind === 'towns' ? 3 : rng.weighted([rng.int(8, 14), rng.int(15, 35), rng.int(36, 60)], [3, 5, 2]);
  const street = namedStreet ?? rng.pick(city.streets);
  const number = rng.int(1, 240) * 2 + (rng.chance(0.5) ? 1 : 0);
  const ctx: PlanContext = {
    rng,
    city,
    premium: rng.float(0.9, 1.15),
    // Two themes: a three-tower project can need more names than one theme has.
    names: rng.sample(PLAN_NAME_THEMES, 2).flatMap((theme) => rng.shuffle(theme)),
  };

  let totalUnits = 0;
  let nextTownUnit = 1;
  const buildings = buildingNames(rng, kind, towers, name).map((buildingName, index): DemoBuilding => {
    const isTowns = kind === 'towns' || buildingName === 'The Townhomes';
    const address = `${number + index * 2 * rng.int(1, 5)} ${street}`;
    const corner = rng.chance(0.25)
      ? [`${rng.int(2, 90) * 2} ${rng.pick(city.streets.filter((s) => s !== street))}`]
      : [];
    let floorPlans: DemoFloorPlan[];
    if (isTowns) {
      floorPlans = townPlans(ctx, nextTownUnit);
      nextTownUnit += floorPlans.reduce((n, p) => n + p.unitNumbers.length, 0);
      totalUnits += floorPlans.reduce((n, p) => n + p.unitNumbers.length, 0);
    } else {
      const unitsPerFloor = rng.int(8, 14);
      const buildingStoreys = index === 0 ? storeys : Math.max(8, storeys - rng.int(2, 12));
      floorPlans = towerPlans(ctx, buildingStoreys, unitsPerFloor);
      totalUnits += (buildingStoreys - 1) * unitsPerFloor;
    }
    const mlsBase = `${city.board}-${slugify(abbreviate(address)).toUpperCase()}`;
    const mlsBuildingKey = registry.mlsKeys.has(mlsBase) ? `${mlsBase}-${index + 1}` : mlsBase;
    registry.mlsKeys.add(mlsBuildingKey);
    const registered =
      city.condoCorp !== null &&
      (constructionStatus === 'completed' ||
        (constructionStatus === 'under-construction' && rng.chance(0.2)));
    const aliases = [abbreviate(address)];
    if (buildingName !== name) aliases.push(`${name} ${buildingName}`);
    if (rng.chance(0.3)) aliases.push(`${base} ${isTowns ? 'Towns' : 'Condos'}`);
    return {
      name: buildingName,
      addresses: [address, ...corner],
      aliases: [...new Set(aliases)],
      mlsBuildingKey,
      condoCorpNumber: registered ? city.condoCorp!(registry.nextCondoCorp++) : null,
      floorPlans,
    };
  });

  const prices = buildings.flatMap((b) => b.floorPlans.map((p) => p.startPrice));
  return {
    key,
    name,
    developerName: rng.pick(DEVELOPERS),
    address: buildings[0].addresses[0],
    city: city.name,
    province: city.province,
    lat: Number((city.lat + rng.float(-0.035, 0.035)).toFixed(6)),
    lng: Number((city.lng + rng.float(-0.05, 0.05)).toFixed(6)),
    constructionStatus,
    salesStatus,
    storeys,
    totalUnits,
    priceMin: Math.min(...prices),
    priceMax: roundPrice(Math.max(...prices) * rng.float(1.08, 1.25)),
    occupancyDate: occupancy(rng, constructionStatus),
    buildings,
  };
}
