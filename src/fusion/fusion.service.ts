import type { EntityManager } from '@mikro-orm/postgresql';
import { nativeQuery } from '../db/native.js';
import { AppError, badInput } from '../errors/catalogue.js';
import { matchListing } from '../matching/floorplan-match.js';
import type { CandidatePlan, ListingMatchResult } from '../matching/floorplan-match.types.js';
import type { BuildingLink, FloorPlanListing, ListingMatch } from './fusion.types.js';
import { MAX_LISTINGS } from '../limits.js';

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

/** A building by id with its identities and project: the Building Link API, in one statement. */
export async function buildingLink(em: EntityManager, id: number): Promise<BuildingLink> {
  if (!Number.isSafeInteger(id) || id <= 0) throw badInput('id', 'must be a positive integer building id');
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

function toWire(result: ListingMatchResult, plans: Map<number, CandidatePlan>): ListingMatch {
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
          startPrice: plans.get(best.floorPlanId)?.startPrice ?? null,
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
  listings: FloorPlanListing[],
): Promise<ListingMatch[]> {
  if (listings.length < 1 || listings.length > MAX_LISTINGS) {
    throw badInput('listings', `must hold 1 to ${MAX_LISTINGS} listings`);
  }
  const buildingIds = new Set(listings.flatMap((l) => (l.building_id ? [l.building_id] : [])));
  const projectIds = new Set(listings.flatMap((l) => (l.project_id ? [l.project_id] : [])));
  const needsAddress = listings.some((l) => !l.building_id && !l.project_id && l.address);
  const query = await nativeQuery(em);
  const buildings = await query<{ id: number; addresses: string[]; aliases: string[] }>(
    needsAddress
      ? 'select id, addresses, aliases from building'
      : 'select id, addresses, aliases from building where id = any($1::int[])',
    needsAddress ? [] : [[...buildingIds]],
  );
  const byId = new Map(buildings.map((b) => [b.id, b]));
  const byAddress = new Map<string, number>();
  for (const b of buildings)
    for (const a of [...b.addresses, ...b.aliases]) byAddress.set(normAddress(a), b.id);
  const resolved = listings.map((l) => {
    if (l.building_id)
      return {
        buildingId: byId.has(l.building_id) ? l.building_id : null,
        projectId: null,
        problem: byId.has(l.building_id) ? null : `building ${l.building_id} not found`,
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
  const wantedBuildings = resolved.flatMap((r) => (r.buildingId ? [r.buildingId] : []));
  const existingProjects = projectIds.size
    ? new Set(
        (
          await query<{ id: number }>('select id from project where id = any($1::int[])', [[...projectIds]])
        ).map((p) => p.id),
      )
    : new Set<number>();
  const candidates = await query<CandidatePlan>(
    `select ${CANDIDATE_COLUMNS} from floor_plan
      where building_id = any($1::int[]) or project_id = any($2::int[]) order by id`,
    [[...new Set(wantedBuildings)], [...existingProjects]],
  );
  const planById = new Map(candidates.map((c) => [c.id, c]));
  // Each listing is scored against its own building's or project's plans, grouped once.
  const byBuilding = new Map<number, CandidatePlan[]>();
  const byProject = new Map<number, CandidatePlan[]>();
  for (const c of candidates) {
    if (c.buildingId !== null) push(byBuilding, c.buildingId, c);
    push(byProject, c.projectId, c);
  }
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
    return toWire(result, planById);
  });
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
