import type { EntityManager } from '@mikro-orm/postgresql';
import {
  BuildingSchema,
  DeveloperSchema,
  FloorPlanSchema,
  ProjectSchema,
  type FloorPlan,
} from '../entities/index.js';
import { AppError, badInput } from '../errors/catalogue.js';
import { matchListing } from '../matching/floorplan-match.js';
import type { CandidatePlan, ListingMatchResult } from '../matching/floorplan-match.types.js';
import type { BuildingLink, FloorPlanListing, ListingMatch } from './fusion.types.js';

export const MAX_LISTINGS = 100;

/** A building by id with its identities and project: the Building Link API. */
export async function buildingLink(em: EntityManager, id: number): Promise<BuildingLink> {
  if (!Number.isSafeInteger(id) || id <= 0) throw badInput('id', 'must be a positive integer building id');
  const building = await em.findOne(BuildingSchema, { id }, { populate: ['project'] });
  if (!building) throw new AppError('NOT_FOUND', `No building with id ${id}`);
  const p = building.project;
  const developer = p.developer ? await em.findOne(DeveloperSchema, { id: p.developer.id }) : null;
  return {
    building: {
      id: building.id,
      name: building.name,
      addresses: building.addresses,
      aliases: building.aliases,
      mlsBuildingKeys: building.mlsBuildingKey ? [building.mlsBuildingKey] : [],
      condoCorpNumber: building.condoCorpNumber ?? null,
    },
    project: {
      id: p.id,
      name: p.name,
      slug: p.slug,
      city: p.city,
      province: p.province ?? null,
      developerName: developer?.name ?? null,
      constructionStatus: p.constructionStatus ?? null,
      salesStatus: p.salesStatus ?? null,
      occupancyDate: p.occupancyDate ?? null,
    },
    geo:
      p.lat !== null && p.lat !== undefined && p.lng !== null && p.lng !== undefined
        ? { lat: Number(p.lat), lng: Number(p.lng) }
        : null,
    match: { method: 'building_id', confidence: 1, basis: [`building id ${building.id}`] },
  };
}

const normAddress = (a: string) => a.toLowerCase().replace(/[.,#]/g, ' ').replace(/\s+/g, ' ').trim();

function toCandidate(f: FloorPlan): CandidatePlan {
  return {
    id: String(f.id),
    projectId: String(f.project.id),
    buildingId: f.building ? String(f.building.id) : null,
    name: f.name,
    model: f.model ?? null,
    bedrooms: f.bedrooms,
    dens: f.dens,
    bathrooms: Number(f.bathrooms),
    interiorSqft: f.interiorSqft ?? null,
    exteriorSqft: f.exteriorSqft ?? null,
    exposure: f.exposure ?? null,
    floorMin: f.floorMin ?? null,
    floorMax: f.floorMax ?? null,
    stacks: f.stacks,
    unitNumbers: f.unitNumbers,
    startPrice: f.startPrice ?? null,
  };
}

function toWire(result: ListingMatchResult, plans: Map<string, CandidatePlan>): ListingMatch {
  const best = result.bestMatch;
  return {
    ref: result.ref,
    status: result.status,
    bestMatch: best
      ? {
          floorPlanId: Number(best.floorPlanId),
          name: best.name,
          score: best.score,
          model: best.plan.model,
          projectId: Number(best.plan.projectId),
          buildingId: best.plan.buildingId ? Number(best.plan.buildingId) : null,
          bedrooms: best.plan.bedrooms,
          dens: best.plan.dens,
          bathrooms: best.plan.bathrooms,
          interiorSqft: best.plan.interiorSqft,
          exposure: best.plan.exposure,
          startPrice: plans.get(best.floorPlanId)?.startPrice ?? null,
        }
      : null,
    candidates: result.candidates.map((c) => ({
      floorPlanId: Number(c.floorPlanId),
      name: c.name,
      score: c.score,
    })),
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
  const buildings = await em.find(BuildingSchema, needsAddress ? {} : { id: { $in: [...buildingIds] } }, {
    fields: ['id', 'project', 'addresses', 'aliases'],
  });
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
        (await em.find(ProjectSchema, { id: { $in: [...projectIds] } }, { fields: ['id'] })).map((p) => p.id),
      )
    : new Set<number>();
  const plans = await em.find(FloorPlanSchema, {
    $or: [{ building: { $in: wantedBuildings } }, { project: { $in: [...existingProjects] } }],
  });
  const candidates = plans.map(toCandidate);
  const planById = new Map(candidates.map((c) => [c.id, c]));
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
    const scope = candidates.filter((c) =>
      r.buildingId ? c.buildingId === String(r.buildingId) : c.projectId === String(r.projectId),
    );
    const result = matchListing(
      {
        ref: l.ref,
        buildingId: r.buildingId ? String(r.buildingId) : null,
        projectId: r.projectId ? String(r.projectId) : null,
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
