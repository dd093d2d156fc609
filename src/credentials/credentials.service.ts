import type { EntityManager } from '@mikro-orm/postgresql';
import { findTeam, findUser } from '../accounts/accounts.service.js';
import { FUSION_PLANS } from '../auth/entitlements.js';
import { displayPrefix, generateSecret, hashSecret } from '../auth/secret.js';
import type { TeamView, Viewer } from '../auth/viewer.js';
import { FUSION_SCOPES, type TokenKind } from '../enums.js';
import { AccessTokenSchema, ApiKeySchema, type AccessToken, type ApiKey } from './credential.entity.js';
import { MembershipSchema, TeamSchema, UserSchema } from '../accounts/team.entity.js';
import { AppError, badInput } from '../errors/catalogue.js';
import { optionalFutureDate, parseId, requireOneOf, requireText } from '../errors/validate.js';
import { MAX_ACTIVE_API_KEYS_PER_TEAM, MAX_ACTIVE_PERSONAL_TOKENS_PER_TEAM } from '../limits.js';
import { revokeGrantOf } from '../oauth/token.service.js';
import type { TokenScope } from './credentials.access.js';

/**
 * A team's credentials: Fusion API keys and MCP access tokens. Secrets are returned once, at
 * creation; only their hashes are stored. Callers authorise first (src/credentials/credentials.access.ts).
 */

/** The longest overlap a rolled key may keep working: time to deploy the new one. */
export const MAX_ROLL_OVERLAP_SECONDS = 30 * 24 * 60 * 60;

export interface ApiKeyView {
  id: number;
  name: string;
  prefix: string;
  scopes: string[];
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
}

export interface AccessTokenView extends ApiKeyView {
  kind: TokenKind;
  clientId: string | null;
  /** The person the token acts as (null for a team-wide token the operator made). */
  userId: number | null;
}

function apiKeyView(k: ApiKey): ApiKeyView {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scopes: [...k.scopes],
    lastUsedAt: k.lastUsedAt ?? null,
    expiresAt: k.expiresAt ?? null,
    revokedAt: k.revokedAt ?? null,
    createdAt: k.createdAt,
  };
}

function accessTokenView(t: AccessToken): AccessTokenView {
  return {
    id: t.id,
    kind: t.kind,
    name: t.name,
    prefix: t.prefix,
    scopes: [...t.scopes],
    clientId: t.clientId ?? null,
    userId: t.user?.id ?? null,
    lastUsedAt: t.lastUsedAt ?? null,
    expiresAt: t.expiresAt ?? null,
    revokedAt: t.revokedAt ?? null,
    createdAt: t.createdAt,
  };
}

function activeOnly(now: Date) {
  return { revokedAt: null, $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }] };
}

export async function listApiKeys(
  em: EntityManager,
  teamId: number,
  includeInactive: boolean,
  now = new Date(),
): Promise<ApiKeyView[]> {
  const rows = await em.find(
    ApiKeySchema,
    { team: parseId('teamId', teamId), ...(includeInactive ? {} : activeOnly(now)) },
    { orderBy: { createdAt: 'desc', id: 'desc' } },
  );
  return rows.map(apiKeyView);
}

export async function listAccessTokens(
  em: EntityManager,
  teamId: number,
  includeInactive: boolean,
  now = new Date(),
): Promise<AccessTokenView[]> {
  const rows = await em.find(
    AccessTokenSchema,
    { team: parseId('teamId', teamId), ...(includeInactive ? {} : activeOnly(now)) },
    { orderBy: { createdAt: 'desc', id: 'desc' } },
  );
  return rows.map(accessTokenView);
}

/**
 * Rotates a key without downtime: a new secret with the same name and scopes works at once, and
 * the old one keeps working for `expiresInSeconds` (0 ends it now), never longer than it would
 * have anyway. Both changes are written in one flush (one transaction).
 */
export async function rollApiKey(
  em: EntityManager,
  id: number,
  expiresInSeconds: number,
  opts: { teamId: number | null; createdBy: number | null },
  now = new Date(),
): Promise<{ apiKey: ApiKeyView; secret: string }> {
  if (
    !Number.isInteger(expiresInSeconds) ||
    expiresInSeconds < 0 ||
    expiresInSeconds > MAX_ROLL_OVERLAP_SECONDS
  ) {
    throw badInput('expiresInSeconds', `must be an integer from 0 to ${MAX_ROLL_OVERLAP_SECONDS}`);
  }
  const old = await em.findOne(
    ApiKeySchema,
    { id: parseId('id', id), ...(opts.teamId ? { team: opts.teamId } : {}) },
    { populate: ['team'] },
  );
  if (!old) throw badInput('id', `no API key with id ${id}`);
  if (old.revokedAt || (old.expiresAt && old.expiresAt.getTime() <= now.getTime())) {
    throw badInput('id', 'the key is revoked or expired: create a new key instead');
  }
  const overlapEnd = new Date(now.getTime() + expiresInSeconds * 1000);
  const originalExpiry = old.expiresAt ?? null;
  // A downgraded team's key is still rolled (rotation is a security fix), but scopes are chosen
  // only on Pro or Elite, so the new key carries none there.
  const scopes = FUSION_PLANS.includes(old.team.plan) ? [...old.scopes] : [];
  const secret = generateSecret('key');
  const fresh = em.create(ApiKeySchema, {
    team: old.team,
    name: old.name,
    prefix: displayPrefix(secret),
    secretHash: hashSecret(secret),
    scopes,
    windowKeyId: old.windowKeyId ?? old.id,
    createdBy: opts.createdBy,
    expiresAt: originalExpiry,
  });
  old.expiresAt = originalExpiry && originalExpiry < overlapEnd ? originalExpiry : overlapEnd;
  await em.flush();
  return { apiKey: apiKeyView(fresh), secret };
}

/** Fusion scopes can be chosen only for a team on Pro or Elite. */
export function validateScopes(team: Pick<TeamView, 'id' | 'plan'>, scopes: unknown): string[] {
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
  now = new Date(),
): Promise<{ apiKey: ApiKeyView; secret: string }> {
  const name = requireText('name', input.name);
  const expiresAt = optionalFutureDate('expiresAt', input.expiresAt);
  const team = await findTeam(em, 'teamId', input.teamId);
  const scopes = validateScopes(team, input.scopes);
  return em.transactional(async (tx) => {
    await lockTeam(tx, team.id);
    const [{ windows }] = await tx.execute<{ windows: number }[]>(
      `select count(distinct coalesce(window_key_id, id))::int as windows from api_key
        where team_id = ? and revoked_at is null and (expires_at is null or expires_at > ?)`,
      [team.id, now],
    );
    if (windows >= MAX_ACTIVE_API_KEYS_PER_TEAM) {
      throw new AppError(
        'CONFLICT',
        `Team ${team.id} already has ${MAX_ACTIVE_API_KEYS_PER_TEAM} active API keys, the most a team may hold: revoke one before creating another`,
      );
    }
    const secret = generateSecret('key');
    const apiKey = tx.create(ApiKeySchema, {
      team: tx.getReference(TeamSchema, team.id),
      name,
      prefix: displayPrefix(secret),
      secretHash: hashSecret(secret),
      scopes,
      createdBy: createdByUserId,
      expiresAt,
    });
    await tx.flush();
    return { apiKey: apiKeyView(apiKey), secret };
  });
}

/**
 * Serialises credential creation within a team (a row lock on the team until the transaction
 * ends), so two concurrent requests cannot both pass a ceiling's count.
 */
async function lockTeam(tx: EntityManager, teamId: number): Promise<void> {
  await tx.execute('select id from team where id = ? for update', [teamId]);
}

export async function revokeApiKey(
  em: EntityManager,
  id: number,
  teamId: number | null,
): Promise<ApiKeyView> {
  const key = await em.findOne(ApiKeySchema, { id: parseId('id', id), ...(teamId ? { team: teamId } : {}) });
  if (!key) throw badInput('id', `no API key with id ${id}`);
  key.revokedAt ??= new Date();
  await em.flush();
  return apiKeyView(key);
}

/**
 * A personal MCP token acts as a user. The operator may name any member; a team admin makes
 * tokens that act as themselves, never as another person.
 */
export async function createAccessToken(
  em: EntityManager,
  input: { teamId: number; userId?: number | null; name: string; expiresAt?: Date | null },
  viewer: Viewer,
  now = new Date(),
): Promise<{ accessToken: AccessTokenView; secret: string }> {
  let userId = input.userId ?? null;
  if (!viewer.isOperator) {
    const self = viewer.user?.id ?? null;
    if (userId !== null && userId !== self) {
      throw new AppError('FORBIDDEN', 'A team admin can create MCP access tokens only for themselves');
    }
    userId = self;
  }
  const name = requireText('name', input.name);
  const expiresAt = optionalFutureDate('expiresAt', input.expiresAt);
  const team = await findTeam(em, 'teamId', input.teamId);
  let user = null;
  if (userId) {
    user = await findUser(em, 'userId', userId);
    if (!(await em.count(MembershipSchema, { team, user }))) {
      throw badInput('userId', `user ${user.id} is not a member of team ${team.id}`);
    }
  }
  return em.transactional(async (tx) => {
    await lockTeam(tx, team.id);
    const [{ active }] = await tx.execute<{ active: number }[]>(
      `select count(*)::int as active from access_token
        where team_id = ? and kind = 'personal' and revoked_at is null
          and (expires_at is null or expires_at > ?)`,
      [team.id, now],
    );
    if (active >= MAX_ACTIVE_PERSONAL_TOKENS_PER_TEAM) {
      throw new AppError(
        'CONFLICT',
        `Team ${team.id} already has ${MAX_ACTIVE_PERSONAL_TOKENS_PER_TEAM} active MCP access tokens, the most a team may hold: revoke one before creating another`,
      );
    }
    const secret = generateSecret('mcp');
    const accessToken = tx.create(AccessTokenSchema, {
      team: tx.getReference(TeamSchema, team.id),
      user: user ? tx.getReference(UserSchema, user.id) : null,
      kind: 'personal',
      name,
      prefix: displayPrefix(secret),
      secretHash: hashSecret(secret),
      scopes: ['mcp'],
      expiresAt,
    });
    await tx.flush();
    return { accessToken: accessTokenView(accessToken), secret };
  });
}

/**
 * Revoking a connector token also ends its grant, so the client cannot simply refresh. The token is
 * looked up within `scope` (a team, and for a member only their own), so anything else reads as
 * not found.
 */
export async function revokeAccessToken(
  em: EntityManager,
  id: number,
  scope: TokenScope,
): Promise<AccessTokenView> {
  const token = await em.findOne(AccessTokenSchema, {
    id: parseId('id', id),
    ...(scope.teamId ? { team: scope.teamId } : {}),
    ...(scope.userId ? { user: scope.userId } : {}),
  });
  if (!token) throw badInput('id', `no access token with id ${id}`);
  token.revokedAt ??= new Date();
  await em.flush();
  if (token.kind === 'oauth') await revokeGrantOf(em, token.id);
  return accessTokenView(token);
}
