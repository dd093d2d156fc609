import type { EntityManager } from '@mikro-orm/postgresql';
import { GenerationCache, generationsFor } from '../db/generation.js';
import { nativeQuery, type NativeQuery } from '../db/native.js';
import { AppError, badInput } from '../errors/catalogue.js';
import { matchListing } from '../matching/floorplan-match.js';
import type { CandidatePlan, ListingMatchResult } from '../matching/floorplan-match.types.js';
import type { BuildingLinkView, FloorPlanListingInput, ListingMatchView } from './fusion.views.js';
import { ENTITY_ID, ENTITY_ID_RULE, MAX_LISTINGS } from '../limits.js';

interface BuildingLinkRow {
  id: number;
  name: string;
  addresses: string[];
  aliases: string[];
  mls_building_key: string | null;
  condo_corp_number: string | null;
  project_id: number;
  project_name: string;
  slug: string;
  city: string;
  province: string | null;
  developer_name: string | null;
  construction_status: string | null;
  sales_status: string | null;
  occupancy_date: string | null;
  lat: number | null;
  lng: number | null;
}

/**
 * What the Fusion APIs read from the catalogue, kept by catalogue generation (src/db/generation.ts):
 * any committed change to a developer, project, building or floor plan, from any node or tool,
 * starts them afresh for the next request. Entries are shared by requests and never modified.
 */
const links = new GenerationCache<number, BuildingLinkView>();
const buildingExists = new GenerationCache<number, boolean>();
const projectExists = new GenerationCache<number, boolean>();
const allBuildings = new GenerationCache<'all', Map<string, number>>();
const plansOfBuilding = new GenerationCache<number, CandidatePlan[]>(2000);
const plansOfProject = new GenerationCache<number, CandidatePlan[]>(2000);

/** A building by id with its identities and project: the Building Link API, in one statement. */
export async function buildingLink(em: EntityManager, id: number): Promise<BuildingLinkView> {
  if (!Number.isInteger(id) || id < ENTITY_ID.min || id > ENTITY_ID.max) throw badInput('id', ENTITY_ID_RULE);
  const { catalogue } = await generationsFor(em);
  const cached = links.get(catalogue, id);
  if (cached) return cached;
  const link = await readBuildingLink(em, id);
  links.set(catalogue, id, link);
  return link;
}

async function readBuildingLink(em: EntityManager, id: number): Promise<BuildingLinkView> {
  const query = await nativeQuery(em);
  const [b] = await query<BuildingLinkRow>(
    `select b.id, b.name, b.addresses, b.aliases, b.mls_building_key, b.condo_corp_number,
            p.id as project_id, p.name as project_name, p.slug, p.city, p.province,
            d.name as developer_name, p.construction_status, p.sales_status, p.occupancy_date, p.lat, p.lng
       from building b join project p on p.id = b.project_id left join developer d on d.id = p.developer_id
      where b.id = $1`,
    [id],
  );
  if (!b) throw new AppError('NOT_FOUND', `No building with id ${id}`);
  return {
    building: {
      id: b.id,
      name: b.name,
      addresses: b.addresses,
      aliases: b.aliases,
      mlsBuildingKeys: b.mls_building_key ? [b.mls_building_key] : [],
      condoCorpNumber: b.condo_corp_number,
    },
    project: {
      id: b.project_id,
      name: b.project_name,
      slug: b.slug,
      city: b.city,
      province: b.province,
      developerName: b.developer_name,
      constructionStatus: b.construction_status,
      salesStatus: b.sales_status,
      occupancyDate: b.occupancy_date,
    },
    geo: b.lat !== null && b.lng !== null ? { lat: Number(b.lat), lng: Number(b.lng) } : null,
    match: { method: 'building_id', confidence: 1, basis: [`building id ${b.id}`] },
  };
}

const normAddress = (a: string) => a.toLowerCase().replace(/[.,#]/g, ' ').replace(/\s+/g, ' ').trim();

/**
 * A floor plan as the matcher reads it, straight from SQL: no entity hydration or identity map for what is read once and scored.
 */
const CANDIDATE_COLUMNS = `id, project_id as "projectId", building_id as "buildingId",
  name, model, bedrooms, dens, bathrooms, interior_sqft as "interiorSqft", exterior_sqft as "exteriorSqft",
  exposure, floor_min as "floorMin", floor_max as "floorMax", stacks, unit_numbers as "unitNumbers",
  start_price as "startPrice"`;

function toWire(result: ListingMatchResult): ListingMatchView {
  const best = result.bestMatch;
  return {
    ref: result.ref,
    status: result.status,
    bestMatch: best
      ? {
          floorPlanId: best.floorPlanId,
          name: best.name,
          score: best.score,
          model: best.plan.model,
          projectId: best.plan.projectId,
          buildingId: best.plan.buildingId,
          bedrooms: best.plan.bedrooms,
          dens: best.plan.dens,
          bathrooms: best.plan.bathrooms,
          interiorSqft: best.plan.interiorSqft,
          exposure: best.plan.exposure,
          startPrice: best.plan.startPrice ?? null,
        }
      : null,
    candidates: result.candidates,
    signals: result.signals,
    message: result.message,
  };
}

/**
 * Matches up to 100 listings: resolves each listing's building or project (id or address), loads
 * the candidate plans of all of them in one query, and scores each listing. Per-listing data
 * problems (unknown building, no address match) are per-listing `no_match` results.
 */
export async function matchFloorPlans(
  em: EntityManager,
  listings: FloorPlanListingInput[],
): Promise<ListingMatchView[]> {
  if (listings.length < 1 || listings.length > MAX_LISTINGS) {
    throw badInput('listings', `must hold 1 to ${MAX_LISTINGS} listings`);
  }
  const buildingIds = [...new Set(listings.flatMap((l) => (l.building_id ? [l.building_id] : [])))];
  const projectIds = [...new Set(listings.flatMap((l) => (l.project_id ? [l.project_id] : [])))];
  const needsAddress = listings.some((l) => !l.building_id && !l.project_id && l.address);
  const { catalogue } = await generationsFor(em);
  const query = await nativeQuery(em);
  const byAddress = needsAddress ? await addressIndex(query, catalogue) : new Map<string, number>();
  const knownBuildings = await existing(query, catalogue, buildingExists, 'building', buildingIds);
  const resolved = listings.map((l) => {
    if (l.building_id)
      return {
        buildingId: knownBuildings.has(l.building_id) ? l.building_id : null,
        projectId: null,
        problem: knownBuildings.has(l.building_id) ? null : `building ${l.building_id} not found`,
      };
    if (l.project_id) return { buildingId: null, projectId: l.project_id, problem: null };
    if (l.address) {
      const id = byAddress.get(normAddress(l.address));
      return {
        buildingId: id ?? null,
        projectId: null,
        problem: id ? null : `no building at address "${l.address}"`,
      };
    }
    return {
      buildingId: null,
      projectId: null,
      problem: 'give building_id, project_id or address to locate the building',
    };
  });
  const wantedBuildings = [...new Set(resolved.flatMap((r) => (r.buildingId ? [r.buildingId] : [])))];
  const existingProjects = await existing(query, catalogue, projectExists, 'project', projectIds);
  // Each listing is scored against its own building's or project's plans (in id order).
  const { byBuilding, byProject } = await candidatePlans(query, catalogue, wantedBuildings, [
    ...existingProjects,
  ]);
  return listings.map((l, i) => {
    const r = resolved[i];
    const problem =
      r.problem ??
      (r.projectId && !existingProjects.has(r.projectId) ? `project ${r.projectId} not found` : null);
    if (problem)
      return {
        ref: l.ref,
        status: 'no_match',
        bestMatch: null,
        candidates: [],
        signals: [],
        message: problem,
      };
    const scope = (r.buildingId ? byBuilding.get(r.buildingId) : byProject.get(r.projectId!)) ?? [];
    const result = matchListing(
      {
        ref: l.ref,
        buildingId: r.buildingId,
        projectId: r.projectId,
        unitNumber: l.unit_number ?? null,
        floor: l.floor ?? null,
        bedrooms: l.bedrooms ?? null,
        dens: l.dens ?? null,
        bathrooms: l.bathrooms ?? null,
        interiorSqft: l.interior_sqft ?? null,
        exposure: l.exposure ?? null,
      },
      scope,
    );
    return toWire(result);
  });
}

/** Building ids by normalised address and alias, over every building. */
async function addressIndex(query: NativeQuery, catalogue: string): Promise<Map<string, number>> {
  const cached = allBuildings.get(catalogue, 'all');
  if (cached) return cached;
  const buildings = await query<{ id: number; addresses: string[]; aliases: string[] }>(
    'select id, addresses, aliases from building',
    [],
  );
  const byAddress = new Map<string, number>();
  for (const b of buildings)
    for (const a of [...b.addresses, ...b.aliases]) byAddress.set(normAddress(a), b.id);
  allBuildings.set(catalogue, 'all', byAddress);
  return byAddress;
}

/** Which of `ids` name a row of `table` (building or project). */
async function existing(
  query: NativeQuery,
  catalogue: string,
  cache: GenerationCache<number, boolean>,
  table: 'building' | 'project',
  ids: number[],
): Promise<Set<number>> {
  const found = new Set<number>();
  const unknown: number[] = [];
  for (const id of ids) {
    const known = cache.get(catalogue, id);
    if (known === undefined) unknown.push(id);
    else if (known) found.add(id);
  }
  if (unknown.length) {
    const rows = await query<{ id: number }>(`select id from ${table} where id = any($1::int[])`, [unknown]);
    const present = new Set(rows.map((r) => r.id));
    for (const id of unknown) {
      cache.set(catalogue, id, present.has(id));
      if (present.has(id)) found.add(id);
    }
  }
  return found;
}

/** Every floor plan of each building and of each project, in id order, in one query for those not cached. */
async function candidatePlans(
  query: NativeQuery,
  catalogue: string,
  buildingIds: number[],
  projectIds: number[],
): Promise<{ byBuilding: Map<number, CandidatePlan[]>; byProject: Map<number, CandidatePlan[]> }> {
  const byBuilding = new Map<number, CandidatePlan[]>();
  const byProject = new Map<number, CandidatePlan[]>();
  const lookUp = (ids: number[], cache: GenerationCache<number, CandidatePlan[]>, into: typeof byBuilding) =>
    ids.filter((id) => {
      const plans = cache.get(catalogue, id);
      if (plans) into.set(id, plans);
      return !plans;
    });
  const buildingsToRead = lookUp(buildingIds, plansOfBuilding, byBuilding);
  const projectsToRead = lookUp(projectIds, plansOfProject, byProject);
  if (!buildingsToRead.length && !projectsToRead.length) return { byBuilding, byProject };
  const rows = await query<CandidatePlan>(
    `select ${CANDIDATE_COLUMNS} from floor_plan
      where building_id = any($1::int[]) or project_id = any($2::int[]) order by id`,
    [buildingsToRead, projectsToRead],
  );
  const read = (
    ids: number[],
    key: (c: CandidatePlan) => number | null,
    cache: typeof plansOfBuilding,
    into: typeof byBuilding,
  ) => {
    const groups = new Map<number, CandidatePlan[]>(ids.map((id) => [id, []]));
    for (const c of rows) {
      const k = key(c);
      if (k !== null) groups.get(k)?.push(c);
    }
    for (const [id, plans] of groups) {
      cache.set(catalogue, id, plans);
      into.set(id, plans);
    }
  };
  read(buildingsToRead, (c) => c.buildingId, plansOfBuilding, byBuilding);
  read(projectsToRead, (c) => c.projectId, plansOfProject, byProject);
  return { byBuilding, byProject };
}
