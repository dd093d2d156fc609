import type { EntityManager } from '@mikro-orm/postgresql';
import { hashPassword } from '../auth/password.js';
import { displayPrefix, generateSecret, hashSecret } from '../auth/secret.js';
import { FUSION_PLANS } from '../auth/entitlements.js';
import {
  AGENT_TIERS,
  CONSTRUCTION_STATUSES,
  FUSION_SCOPES,
  PLANS,
  ROLES,
  SALES_STATUSES,
  SUBSCRIPTION_STATUSES,
  type AgentTier,
  type Plan,
  type Role,
  type SubscriptionStatus,
} from '../entities/enums.js';
import {
  AccessTokenSchema,
  ApiKeySchema,
  BuildingSchema,
  DeveloperSchema,
  FloorPlanSchema,
  MembershipSchema,
  ProjectSchema,
  TeamSchema,
  UserSchema,
  type AccessToken,
  type ApiKey,
  type Building,
  type FloorPlan,
  type Project,
  type Team,
  type User,
} from '../entities/index.js';
import { badInput } from '../errors/catalogue.js';
import {
  optionalFutureDate,
  optionalInt,
  optionalOneOf,
  optionalText,
  parseId,
  requireOneOf,
  requireText,
  slugify,
} from './validate.js';

/**
 * Team, user, catalogue and credential administration. Callers authorise first (operator or team
 * admin); every function validates all of its input before it writes anything.
 */

async function findTeam(em: EntityManager, field: string, id: number): Promise<Team> {
  const team = await em.findOne(TeamSchema, { id: parseId(field, id) });
  if (!team) throw badInput(field, `no team with id ${id}`);
  return team;
}

async function findUser(em: EntityManager, field: string, id: number): Promise<User> {
  const user = await em.findOne(UserSchema, { id: parseId(field, id) });
  if (!user) throw badInput(field, `no user with id ${id}`);
  return user;
}

async function findProject(em: EntityManager, field: string, id: number): Promise<Project> {
  const project = await em.findOne(ProjectSchema, { id: parseId(field, id) });
  if (!project) throw badInput(field, `no project with id ${id}`);
  return project;
}

export async function createTeam(
  em: EntityManager,
  input: {
    name: string;
    plan: unknown;
    agentTier?: unknown;
    subscriptionStatus?: unknown;
    pastDueSince?: Date | null;
  },
): Promise<Team> {
  const subscriptionStatus =
    optionalOneOf<SubscriptionStatus>(
      'subscriptionStatus',
      SUBSCRIPTION_STATUSES,
      input.subscriptionStatus,
    ) ?? 'active';
  const team = em.create(TeamSchema, {
    name: requireText('name', input.name),
    plan: requireOneOf<Plan>('plan', PLANS, input.plan),
    agentTier: optionalOneOf<AgentTier>('agentTier', AGENT_TIERS, input.agentTier) ?? 'none',
    subscriptionStatus,
    pastDueSince: pastDueSince(subscriptionStatus, null, input.pastDueSince),
  });
  await em.flush();
  return team;
}

export async function updateTeam(
  em: EntityManager,
  id: number,
  input: {
    name?: string | null;
    plan?: unknown;
    agentTier?: unknown;
    subscriptionStatus?: unknown;
    pastDueSince?: Date | null;
  },
): Promise<Team> {
  const team = await findTeam(em, 'id', id);
  const name = input.name === undefined || input.name === null ? null : requireText('name', input.name);
  const plan = optionalOneOf<Plan>('plan', PLANS, input.plan);
  const agentTier = optionalOneOf<AgentTier>('agentTier', AGENT_TIERS, input.agentTier);
  const status = optionalOneOf<SubscriptionStatus>(
    'subscriptionStatus',
    SUBSCRIPTION_STATUSES,
    input.subscriptionStatus,
  );
  if (name) team.name = name;
  if (plan) team.plan = plan;
  if (agentTier) team.agentTier = agentTier;
  if (status || input.pastDueSince) {
    const next = status ?? team.subscriptionStatus;
    team.pastDueSince = pastDueSince(
      next,
      team.subscriptionStatus === 'past_due' ? team.pastDueSince : null,
      input.pastDueSince,
    );
    team.subscriptionStatus = next;
  }
  await em.flush();
  return team;
}

/**
 * When a past_due subscription fell due: the billing system's date when it gives one, else the
 * date already recorded, else now. Any other status clears it, so a later lapse starts a new grace.
 */
function pastDueSince(
  status: SubscriptionStatus,
  recorded: Date | null | undefined,
  given: Date | null | undefined,
): Date | null {
  if (status !== 'past_due') {
    if (given) throw badInput('pastDueSince', 'applies only to a past_due subscription');
    return null;
  }
  if (given && (Number.isNaN(given.getTime()) || given.getTime() > Date.now()))
    throw badInput('pastDueSince', 'must be a valid date-time, not in the future');
  return given ?? recorded ?? new Date();
}

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function createUser(
  em: EntityManager,
  input: { email: string; name: string; password: string },
): Promise<User> {
  const email = requireText('email', input.email, 320).toLowerCase();
  if (!EMAIL_RE.test(email)) throw badInput('email', 'must be an email address');
  const name = requireText('name', input.name);
  if (typeof input.password !== 'string' || input.password.length < 8) {
    throw badInput('password', 'must be at least 8 characters');
  }
  if (input.password.length > 1024) throw badInput('password', 'must be at most 1024 characters');
  if (await em.count(UserSchema, { email })) throw badInput('email', 'is already registered');
  const user = em.create(UserSchema, { email, name, passwordHash: await hashPassword(input.password) });
  await em.flush();
  return user;
}

export async function addMembership(
  em: EntityManager,
  input: { teamId: number; userId: number; role: unknown },
): Promise<{ id: number; role: Role; team: Team; user: User }> {
  const role = requireOneOf<Role>('role', ROLES, input.role);
  const team = await findTeam(em, 'teamId', input.teamId);
  const user = await findUser(em, 'userId', input.userId);
  const existing = await em.findOne(MembershipSchema, { team, user });
  if (existing) {
    existing.role = role;
    await em.flush();
    return { id: existing.id, role, team, user };
  }
  const membership = em.create(MembershipSchema, { team, user, role });
  await em.flush();
  return { id: membership.id, role, team, user };
}

export async function removeMembership(em: EntityManager, teamId: number, userId: number): Promise<boolean> {
  const deleted = await em.nativeDelete(MembershipSchema, {
    team: parseId('teamId', teamId),
    user: parseId('userId', userId),
  });
  return deleted > 0;
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

export async function createProject(em: EntityManager, input: ProjectInput): Promise<Project> {
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
  return project;
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
): Promise<Building> {
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
  return building;
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
): Promise<FloorPlan> {
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
  return plan;
}

/** Fusion scopes can be chosen only for a team on Pro or Elite. */
export function validateScopes(team: Team, scopes: unknown): string[] {
  if (!Array.isArray(scopes)) throw badInput('scopes', 'must be a list of scopes');
  const unique = [...new Set(scopes)];
  unique.forEach((s, i) => requireOneOf(`scopes.${i}`, FUSION_SCOPES, s));
  if (unique.length > 0 && !FUSION_PLANS.includes(team.plan)) {
    throw badInput('scopes', `Fusion scopes require a Pro or Elite plan; team ${team.id} is on ${team.plan}`);
  }
  return unique as string[];
}

export async function createApiKey(
  em: EntityManager,
  input: { teamId: number; name: string; scopes: string[]; expiresAt?: Date | null },
  createdByUserId: number | null,
): Promise<{ apiKey: ApiKey; secret: string }> {
  const name = requireText('name', input.name);
  const expiresAt = optionalFutureDate('expiresAt', input.expiresAt);
  const team = await findTeam(em, 'teamId', input.teamId);
  const scopes = validateScopes(team, input.scopes);
  const secret = generateSecret('key');
  const apiKey = em.create(ApiKeySchema, {
    team,
    name,
    prefix: displayPrefix(secret),
    secretHash: hashSecret(secret),
    scopes,
    createdBy: createdByUserId,
    expiresAt,
  });
  await em.flush();
  return { apiKey, secret };
}

export async function revokeApiKey(em: EntityManager, id: number, teamId?: number): Promise<ApiKey> {
  const key = await em.findOne(ApiKeySchema, { id: parseId('id', id), ...(teamId ? { team: teamId } : {}) });
  if (!key) throw badInput('id', `no API key with id ${id}`);
  key.revokedAt ??= new Date();
  await em.flush();
  return key;
}

export async function createAccessToken(
  em: EntityManager,
  input: { teamId: number; userId?: number | null; name: string; expiresAt?: Date | null },
): Promise<{ accessToken: AccessToken; secret: string }> {
  const name = requireText('name', input.name);
  const expiresAt = optionalFutureDate('expiresAt', input.expiresAt);
  const team = await findTeam(em, 'teamId', input.teamId);
  let user = null;
  if (input.userId) {
    user = await findUser(em, 'userId', input.userId);
    if (!(await em.count(MembershipSchema, { team, user }))) {
      throw badInput('userId', `user ${user.id} is not a member of team ${team.id}`);
    }
  }
  const secret = generateSecret('mcp');
  const accessToken = em.create(AccessTokenSchema, {
    team,
    user,
    kind: 'personal',
    name,
    prefix: displayPrefix(secret),
    secretHash: hashSecret(secret),
    scopes: ['mcp'],
    expiresAt,
  });
  await em.flush();
  return { accessToken, secret };
}

export async function revokeAccessToken(
  em: EntityManager,
  id: number,
  teamId?: number,
): Promise<AccessToken> {
  const token = await em.findOne(AccessTokenSchema, {
    id: parseId('id', id),
    ...(teamId ? { team: teamId } : {}),
  });
  if (!token) throw badInput('id', `no access token with id ${id}`);
  token.revokedAt ??= new Date();
  await em.flush();
  return token;
}
