import type { EntityManager } from '@mikro-orm/postgresql';
import {
  InvalidGrantError,
  InvalidScopeError,
  InvalidTargetError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { displayPrefix, generateSecret, hashSecret, parseSecret } from '../auth/secret.js';
import { AccessTokenSchema } from '../credentials/credential.entity.js';
import { OAuthRefreshTokenSchema } from './oauth.entity.js';
import { grantObstacle } from './eligibility.js';
import { sameResource } from './urls.js';

export const ACCESS_TOKEN_TTL_SECONDS = 60 * 60;
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 60 * 60;
/** Expired connector access tokens are kept this long (visible in the team settings), then deleted. */
const EXPIRED_TOKEN_RETENTION_MS = 24 * 60 * 60 * 1000;

export interface Grant {
  family: string;
  clientId: string;
  clientName: string | null;
  userId: number;
  teamId: number;
  resource: string;
  scopes: string[];
}

/**
 * Issues an access token (a `pds_oat_` secret in `access_token`, so the one context resolves it
 * like any other credential) and its refresh token (`pds_ort_`). Only SHA-256 hashes are stored.
 */
export async function issueTokens(em: EntityManager, grant: Grant, now = new Date()): Promise<OAuthTokens> {
  const access = generateSecret('oat');
  const refresh = generateSecret('ort');
  const accessToken = em.create(AccessTokenSchema, {
    team: grant.teamId,
    user: grant.userId,
    kind: 'oauth',
    name: `Connector: ${grant.clientName ?? grant.clientId}`.slice(0, 200),
    prefix: displayPrefix(access),
    secretHash: hashSecret(access),
    scopes: grant.scopes,
    clientId: grant.clientId,
    resource: grant.resource,
    expiresAt: new Date(now.getTime() + ACCESS_TOKEN_TTL_SECONDS * 1000),
  });
  em.create(OAuthRefreshTokenSchema, {
    family: grant.family,
    client: grant.clientId,
    user: grant.userId,
    team: grant.teamId,
    secretHash: hashSecret(refresh),
    resource: grant.resource,
    scopes: grant.scopes,
    accessToken,
    expiresAt: new Date(now.getTime() + REFRESH_TOKEN_TTL_SECONDS * 1000),
  });
  await em.flush();
  return {
    access_token: access,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
    refresh_token: refresh,
    scope: grant.scopes.join(' '),
  };
}

/** Revokes every refresh token of a family and the access tokens issued with them. */
export async function revokeFamily(em: EntityManager, family: string, now = new Date()): Promise<void> {
  const rows = await em.find(OAuthRefreshTokenSchema, { family }, { fields: ['id', 'accessToken'] });
  const accessIds = rows.flatMap((r) => (r.accessToken ? [r.accessToken.id] : []));
  await em.nativeUpdate(OAuthRefreshTokenSchema, { family, revokedAt: null }, { revokedAt: now });
  if (accessIds.length) {
    await em.nativeUpdate(AccessTokenSchema, { id: { $in: accessIds }, revokedAt: null }, { revokedAt: now });
  }
}

/**
 * Refresh-token rotation (OAuth 2.1 §4.3.1): each refresh token works once. Presenting one that was
 * already used means two parties hold it, so the whole family is revoked. The claim is a
 * conditional UPDATE, so two nodes racing on one token cannot both win.
 */
export async function rotateRefreshToken(
  em: EntityManager,
  clientId: string,
  refreshToken: string,
  requested: { scopes?: string[]; resource?: URL },
  now = new Date(),
): Promise<OAuthTokens> {
  if (parseSecret(refreshToken) !== 'ort') throw new InvalidGrantError('The refresh token is invalid');
  const row = await em.findOne(
    OAuthRefreshTokenSchema,
    { secretHash: hashSecret(refreshToken) },
    { populate: ['client'] },
  );
  if (!row || row.client.id !== clientId) throw new InvalidGrantError('The refresh token is invalid');
  if (row.revokedAt) throw new InvalidGrantError('The refresh token has been revoked');
  if (row.usedAt) {
    await revokeFamily(em, row.family, now);
    throw new InvalidGrantError('The refresh token was already used; the grant has been revoked');
  }
  if (row.expiresAt.getTime() <= now.getTime()) throw new InvalidGrantError('The refresh token has expired');
  if (requested.resource && !sameResource(requested.resource.href, row.resource)) {
    throw new InvalidTargetError(`The refresh token was issued for ${row.resource}`);
  }
  const scopes = requested.scopes?.filter((s) => s !== '') ?? row.scopes;
  const extra = scopes.find((s) => !row.scopes.includes(s));
  if (extra !== undefined) throw new InvalidScopeError(`The scope '${extra}' was not granted`);
  const obstacle = await grantObstacle(em, row.user.id, row.team.id);
  if (obstacle) throw new InvalidGrantError(`The grant is no longer valid: ${obstacle}`);
  const claimed = await em.nativeUpdate(
    OAuthRefreshTokenSchema,
    { id: row.id, usedAt: null, revokedAt: null },
    { usedAt: now },
  );
  if (claimed !== 1) {
    await revokeFamily(em, row.family, now);
    throw new InvalidGrantError('The refresh token was already used; the grant has been revoked');
  }
  await pruneFamily(em, row.family, now);
  return issueTokens(
    em,
    {
      family: row.family,
      clientId,
      clientName: (row.client.clientName as string | null) ?? null,
      userId: row.user.id,
      teamId: row.team.id,
      resource: row.resource,
      scopes: scopes.length ? scopes : row.scopes,
    },
    now,
  );
}

/**
 * Each refresh leaves an access token and a used refresh token behind. Once expired (plus a day,
 * so the settings still show recent ones) they are deleted: an expired refresh token is refused
 * anyway, so reuse detection loses nothing.
 */
async function pruneFamily(em: EntityManager, family: string, now: Date): Promise<void> {
  const cutoff = new Date(now.getTime() - EXPIRED_TOKEN_RETENTION_MS);
  const rows = await em.find(OAuthRefreshTokenSchema, { family }, { fields: ['accessToken'] });
  const ids = rows.flatMap((r) => (r.accessToken ? [r.accessToken.id] : []));
  if (ids.length) {
    await em.nativeDelete(AccessTokenSchema, { id: { $in: ids }, kind: 'oauth', expiresAt: { $lt: cutoff } });
  }
  await em.nativeDelete(OAuthRefreshTokenSchema, { family, expiresAt: { $lt: cutoff } });
}

/** RFC 7009: revoking either token of a grant ends the grant; unknown tokens are ignored. */
export async function revokeClientToken(em: EntityManager, clientId: string, token: string): Promise<void> {
  const kind = parseSecret(token);
  const hash = hashSecret(token);
  if (kind === 'ort') {
    const row = await em.findOne(OAuthRefreshTokenSchema, { secretHash: hash, client: clientId });
    if (row) await revokeFamily(em, row.family);
  } else if (kind === 'oat') {
    const access = await em.findOne(AccessTokenSchema, { secretHash: hash, kind: 'oauth', clientId });
    if (access) await revokeGrantOf(em, access.id);
  }
}

/** Ends the grant a connector access token belongs to (the token itself included). */
export async function revokeGrantOf(
  em: EntityManager,
  accessTokenId: number,
  now = new Date(),
): Promise<void> {
  await em.nativeUpdate(AccessTokenSchema, { id: accessTokenId, revokedAt: null }, { revokedAt: now });
  const issuedWith = await em.findOne(OAuthRefreshTokenSchema, { accessToken: accessTokenId });
  if (issuedWith) await revokeFamily(em, issuedWith.family, now);
}

/** Token introspection for the SDK's bearer middleware (not used by /mcp, which has the one context). */
export async function describeAccessToken(em: EntityManager, token: string): Promise<AuthInfo | null> {
  if (parseSecret(token) !== 'oat') return null;
  const row = await em.findOne(AccessTokenSchema, { secretHash: hashSecret(token), kind: 'oauth' });
  if (!row || row.revokedAt || !row.clientId) return null;
  if (row.expiresAt && row.expiresAt.getTime() <= Date.now()) return null;
  return {
    token,
    clientId: row.clientId,
    scopes: [...row.scopes],
    expiresAt: row.expiresAt ? Math.floor(row.expiresAt.getTime() / 1000) : undefined,
    resource: row.resource ? new URL(row.resource) : undefined,
  };
}
