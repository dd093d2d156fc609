import type { EntityManager } from '@mikro-orm/postgresql';
import { FUSION_PLANS } from '../auth/entitlements.js';
import { displayPrefix, generateSecret, hashSecret } from '../auth/secret.js';
import type { Viewer } from '../auth/viewer.js';
import type { TokenKind } from '../entities/enums.js';
import { AccessTokenSchema, ApiKeySchema, type AccessToken, type ApiKey } from '../entities/index.js';
import { AppError, badInput } from '../errors/catalogue.js';
import { revokeGrantOf } from '../oauth/token.service.js';
import * as admin from '../services/admin.service.js';
import { parseId } from '../services/validate.js';

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
    createdBy: opts.createdBy,
    expiresAt: originalExpiry,
  });
  old.expiresAt = originalExpiry && originalExpiry < overlapEnd ? originalExpiry : overlapEnd;
  await em.flush();
  return { apiKey: apiKeyView(fresh), secret };
}

/**
 * A personal MCP token acts as a user. The operator may name any member; a team admin makes
 * tokens that act as themselves, never as another person.
 */
export async function createAccessToken(
  em: EntityManager,
  input: { teamId: number; userId?: number | null; name: string; expiresAt?: Date | null },
  viewer: Viewer,
): Promise<{ accessToken: AccessToken; secret: string }> {
  let userId = input.userId ?? null;
  if (!viewer.isOperator) {
    const self = viewer.user?.id ?? null;
    if (userId !== null && userId !== self) {
      throw new AppError('FORBIDDEN', 'A team admin can create MCP access tokens only for themselves');
    }
    userId = self;
  }
  return admin.createAccessToken(em, { ...input, userId });
}

/** Revoking a connector token also ends its grant, so the client cannot simply refresh. */
export async function revokeAccessToken(
  em: EntityManager,
  id: number,
  teamId: number | null,
): Promise<AccessToken> {
  const token = await admin.revokeAccessToken(em, id, teamId ?? undefined);
  if (token.kind === 'oauth') await revokeGrantOf(em, token.id);
  return token;
}
