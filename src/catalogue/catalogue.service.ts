import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { defineLoader, byId, groupBy } from '../context/loaders.js';
import { CONSTRUCTION_STATUSES, SALES_STATUSES } from '../enums.js';
import {
  BuildingSchema,
  DeveloperSchema,
  FloorPlanSchema,
  ProjectSchema,
  type Building,
  type FloorPlan,
  type Project,
} from './project.entity.js';
import { badInput } from '../errors/catalogue.js';
import {
  optionalInt,
  optionalOneOf,
  optionalText,
  parseId,
  requireOneOf,
  requireText,
  slugify,
} from '../errors/validate.js';
import { MAX_QUERY_LENGTH, PROJECT_PAGE, PROJECTS_PER_PAGE } from '../limits.js';

/**
 * The catalogue: projects, their buildings and floor plans. Reads return plain views (foreign keys
 * as ids); the operator's writes validate all of their input before they write anything.
 */

export interface ProjectView {
  id: number;
  name: string;
  slug: string;
  developerId: number | null;
  address: string | null;
  city: string;
  province: string | null;
  lat: number | null;
  lng: number | null;
  constructionStatus: string | null;
  salesStatus: string | null;
  storeys: number | null;
  totalUnits: number | null;
  priceMin: number | null;
  priceMax: number | null;
  occupancyDate: string | null;
}

export interface BuildingView {
  id: number;
  projectId: number;
  name: string;
  addresses: string[];
  aliases: string[];
  mlsBuildingKey: string | null;
  condoCorpNumber: string | null;
}

export interface FloorPlanView {
  id: number;
  projectId: number;
  buildingId: number | null;
  name: string;
  model: string | null;
  bedrooms: number;
  dens: number;
  bathrooms: number;
  interiorSqft: number | null;
  exteriorSqft: number | null;
  exposure: string | null;
  floorMin: number | null;
  floorMax: number | null;
  stacks: string[];
  unitNumbers: string[];
  startPrice: number | null;
}

export function projectView(p: Project): ProjectView {
  return {
    id: p.id,
    name: p.name,
    slug: p.slug,
    developerId: p.developer?.id ?? null,
    address: p.address ?? null,
    city: p.city,
    province: p.province ?? null,
    lat: p.lat === null || p.lat === undefined ? null : Number(p.lat),
    lng: p.lng === null || p.lng === undefined ? null : Number(p.lng),
    constructionStatus: p.constructionStatus ?? null,
    salesStatus: p.salesStatus ?? null,
    storeys: p.storeys ?? null,
    totalUnits: p.totalUnits ?? null,
    priceMin: p.priceMin ?? null,
    priceMax: p.priceMax ?? null,
    occupancyDate: p.occupancyDate ?? null,
  };
}

function buildingView(b: Building): BuildingView {
  return {
    id: b.id,
    projectId: b.project.id,
    name: b.name,
    addresses: [...b.addresses],
    aliases: [...b.aliases],
    mlsBuildingKey: b.mlsBuildingKey ?? null,
    condoCorpNumber: b.condoCorpNumber ?? null,
  };
}

function floorPlanView(f: FloorPlan): FloorPlanView {
  return {
    id: f.id,
    projectId: f.project.id,
    buildingId: f.building?.id ?? null,
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
    stacks: [...f.stacks],
    unitNumbers: [...f.unitNumbers],
    startPrice: f.startPrice ?? null,
  };
}

/** Per-request batch reads of the catalogue (src/context/loaders.ts). */
export const catalogueLoaders = {
  project: defineLoader<number, ProjectView | null>('project', async (em, ids) =>
    byId((await em.find(ProjectSchema, { id: { $in: [...ids] } })).map(projectView), ids),
  ),
  developerName: defineLoader<number, string | null>('developerName', async (em, ids) =>
    byId(await em.find(DeveloperSchema, { id: { $in: [...ids] } }), ids).map((d) => d?.name ?? null),
  ),
  buildingsByProject: defineLoader<number, BuildingView[]>('buildingsByProject', async (em, ids) =>
    groupBy(
      (await em.find(BuildingSchema, { project: { $in: [...ids] } }, { orderBy: { id: 'asc' } })).map(
        buildingView,
      ),
      (b) => b.projectId,
      ids,
    ),
  ),
  floorPlansByBuilding: defineLoader<number, FloorPlanView[]>('floorPlansByBuilding', async (em, ids) =>
    groupBy(
      (await em.find(FloorPlanSchema, { building: { $in: [...ids] } }, { orderBy: { id: 'asc' } })).map(
        floorPlanView,
      ),
      (f) => f.buildingId!,
      ids,
    ),
  ),
  floorPlansByProject: defineLoader<number, FloorPlanView[]>('floorPlansByProject', async (em, ids) =>
    groupBy(
      (await em.find(FloorPlanSchema, { project: { $in: [...ids] } }, { orderBy: { id: 'asc' } })).map(
        floorPlanView,
      ),
      (f) => f.projectId,
      ids,
    ),
  ),
};

async function findProject(em: EntityManager, field: string, id: number): Promise<Project> {
  const project = await em.findOne(ProjectSchema, { id: parseId(field, id) });
  if (!project) throw badInput(field, `no project with id ${id}`);
  return project;
}

export interface ProjectFilterInput {
  city?: string | null;
  status?: string | null;
  developer?: string | null;
  q?: string | null;
}

function likePattern(text: string): string {
  return `%${text.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export async function listProjects(
  em: EntityManager,
  filter: ProjectFilterInput,
  page: number,
  perPage: number,
  /** The last project of the previous page (a cursor's position): the page starts after it. */
  after?: { name: string; id: number },
): Promise<{
  items: ProjectView[];
  total: number;
  page: number;
  perPage: number;
  totalPages: number;
  meta: { page: number; perPage: number; total: number; totalPages: number };
  /** Whether projects follow this page in the listing's order. */
  more: boolean;
}> {
  if (!Number.isInteger(page) || page < PROJECT_PAGE.min || page > PROJECT_PAGE.max)
    throw badInput('page', `must be an integer from ${PROJECT_PAGE.min} to ${PROJECT_PAGE.max}`);
  if (!Number.isInteger(perPage) || perPage < PROJECTS_PER_PAGE.min || perPage > PROJECTS_PER_PAGE.max) {
    throw badInput('perPage', `must be an integer from ${PROJECTS_PER_PAGE.min} to ${PROJECTS_PER_PAGE.max}`);
  }
  const where: FilterQuery<Project>[] = [];
  if (filter.city?.trim())
    where.push({ city: { $ilike: filter.city.trim().replace(/[\\%_]/g, (c) => `\\${c}`) } });
  if (filter.status?.trim()) {
    const s = filter.status.trim().toLowerCase();
    where.push({ $or: [{ constructionStatus: s as never }, { salesStatus: s as never }] });
  }
  if (filter.developer?.trim())
    where.push({ developer: { name: { $ilike: likePattern(filter.developer) } } });
  if (filter.q?.trim()) where.push({ name: { $ilike: likePattern(filter.q) } });
  for (const [field, value] of Object.entries(filter)) {
    if (typeof value === 'string' && value.length > MAX_QUERY_LENGTH)
      throw badInput(`filter.${field}`, `must be at most ${MAX_QUERY_LENGTH} characters`);
  }
  const filtered: FilterQuery<Project> = where.length ? { $and: where } : {};
  // After a cursor's project, in the listing's order (name, then id): projects added meanwhile
  // shift no page, as an offset would.
  const seek: FilterQuery<Project> = after
    ? {
        $and: [
          ...where,
          { $or: [{ name: { $gt: after.name } }, { name: after.name, id: { $gt: after.id } }] },
        ],
      }
    : filtered;
  // The catalogue tolerates replica lag: a read replica serves it when one is configured.
  const [rows, total] = await Promise.all([
    em.find(ProjectSchema, seek, {
      orderBy: { name: 'asc', id: 'asc' },
      limit: perPage + 1,
      offset: after ? 0 : (page - 1) * perPage,
      connectionType: 'read',
    }),
    em.count(ProjectSchema, filtered, { connectionType: 'read' }),
  ]);
  const items = rows.slice(0, perPage);
  const totalPages = Math.ceil(total / perPage);
  return {
    items: items.map(projectView),
    total,
    page,
    perPage,
    totalPages,
    meta: { page, perPage, total, totalPages },
    more: rows.length > perPage,
  };
}

export async function getProject(em: EntityManager, id: number): Promise<ProjectView | null> {
  const project = await em.findOne(ProjectSchema, { id: parseId('id', id) }, { connectionType: 'read' });
  return project && projectView(project);
}

export interface ProjectInput {
  name: string;
  slug?: string | null;
  city: string;
  developerName?: string | null;
  address?: string | null;
  province?: string | null;
  lat?: number | null;
  lng?: number | null;
  constructionStatus?: string | null;
  salesStatus?: string | null;
  storeys?: number | null;
  totalUnits?: number | null;
  priceMin?: number | null;
  priceMax?: number | null;
  occupancyDate?: string | null;
}

export async function createProject(em: EntityManager, input: ProjectInput): Promise<ProjectView> {
  const name = requireText('name', input.name);
  const city = requireText('city', input.city, 120);
  const slug = input.slug ? slugify(input.slug) : slugify(name);
  if (!slug) throw badInput('slug', 'must contain letters or digits');
  if (input.lat !== null && input.lat !== undefined && !(Math.abs(input.lat) <= 90))
    throw badInput('lat', 'must be from -90 to 90');
  if (input.lng !== null && input.lng !== undefined && !(Math.abs(input.lng) <= 180))
    throw badInput('lng', 'must be from -180 to 180');
  if (input.occupancyDate && !/^\d{4}-(0[1-9]|1[0-2])$/.test(input.occupancyDate)) {
    throw badInput('occupancyDate', 'must be YYYY-MM');
  }
  const fields = {
    constructionStatus: optionalOneOf('constructionStatus', CONSTRUCTION_STATUSES, input.constructionStatus),
    salesStatus: optionalOneOf('salesStatus', SALES_STATUSES, input.salesStatus),
    storeys: optionalInt('storeys', input.storeys, 1, 200),
    totalUnits: optionalInt('totalUnits', input.totalUnits, 1, 100_000),
    priceMin: optionalInt('priceMin', input.priceMin, 0, 2_000_000_000),
    priceMax: optionalInt('priceMax', input.priceMax, 0, 2_000_000_000),
  };
  if (await em.count(ProjectSchema, { slug })) throw badInput('slug', `a project with slug '${slug}' exists`);
  const developerName = optionalText('developerName', input.developerName, 200);
  let developer = null;
  if (developerName) {
    developer =
      (await em.findOne(DeveloperSchema, { name: developerName })) ??
      em.create(DeveloperSchema, { name: developerName });
  }
  const project = em.create(ProjectSchema, {
    name,
    slug,
    city,
    developer,
    address: optionalText('address', input.address),
    province: optionalText('province', input.province, 60),
    lat: input.lat ?? null,
    lng: input.lng ?? null,
    occupancyDate: input.occupancyDate ?? null,
    ...fields,
  });
  await em.flush();
  return projectView(project);
}

export async function createBuilding(
  em: EntityManager,
  input: {
    projectId: number;
    name: string;
    addresses?: string[] | null;
    aliases?: string[] | null;
    mlsBuildingKey?: string | null;
    condoCorpNumber?: string | null;
  },
): Promise<BuildingView> {
  const name = requireText('name', input.name);
  const project = await findProject(em, 'projectId', input.projectId);
  const clean = (field: string, list: string[] | null | undefined) =>
    (list ?? []).map((v, i) => requireText(`${field}.${i}`, v, 300));
  const building = em.create(BuildingSchema, {
    project,
    name,
    addresses: clean('addresses', input.addresses),
    aliases: clean('aliases', input.aliases),
    mlsBuildingKey: optionalText('mlsBuildingKey', input.mlsBuildingKey, 60),
    condoCorpNumber: optionalText('condoCorpNumber', input.condoCorpNumber, 60),
  });
  await em.flush();
  return buildingView(building);
}

const EXPOSURES = ['N', 'NE', 'E', 'SE', 'S', 'SW', 'W', 'NW'] as const;

export async function createFloorPlan(
  em: EntityManager,
  input: {
    projectId: number;
    buildingId?: number | null;
    name: string;
    model?: string | null;
    bedrooms: number;
    dens?: number | null;
    bathrooms: number;
    interiorSqft?: number | null;
    exteriorSqft?: number | null;
    exposure?: string | null;
    floorMin?: number | null;
    floorMax?: number | null;
    stacks?: string[] | null;
    unitNumbers?: string[] | null;
    startPrice?: number | null;
  },
): Promise<FloorPlanView> {
  const name = requireText('name', input.name);
  const bedrooms = optionalInt('bedrooms', input.bedrooms, 0, 20)!;
  if (!(input.bathrooms >= 0 && input.bathrooms <= 20 && Number.isInteger(input.bathrooms * 2))) {
    throw badInput('bathrooms', 'must be a multiple of 0.5 from 0 to 20');
  }
  const floorMin = optionalInt('floorMin', input.floorMin, -5, 200);
  const floorMax = optionalInt('floorMax', input.floorMax, -5, 200);
  if (floorMin !== null && floorMax !== null && floorMin > floorMax)
    throw badInput('floorMax', 'must be ≥ floorMin');
  const exposure = input.exposure ? requireOneOf('exposure', EXPOSURES, input.exposure.toUpperCase()) : null;
  const project = await findProject(em, 'projectId', input.projectId);
  let building = null;
  if (input.buildingId) {
    building = await em.findOne(BuildingSchema, { id: parseId('buildingId', input.buildingId) });
    if (!building || building.project.id !== project.id) {
      throw badInput('buildingId', `no building with id ${input.buildingId} in project ${project.id}`);
    }
  }
  const plan = em.create(FloorPlanSchema, {
    project,
    building,
    name,
    model: optionalText('model', input.model, 100),
    bedrooms,
    dens: optionalInt('dens', input.dens, 0, 5) ?? 0,
    bathrooms: input.bathrooms,
    interiorSqft: optionalInt('interiorSqft', input.interiorSqft, 1, 100_000),
    exteriorSqft: optionalInt('exteriorSqft', input.exteriorSqft, 0, 100_000),
    exposure,
    floorMin,
    floorMax,
    stacks: (input.stacks ?? []).map((s, i) => requireText(`stacks.${i}`, s, 10)),
    unitNumbers: (input.unitNumbers ?? []).map((s, i) => requireText(`unitNumbers.${i}`, s, 20)),
    startPrice: optionalInt('startPrice', input.startPrice, 0, 2_000_000_000),
  });
  await em.flush();
  return floorPlanView(plan);
}
