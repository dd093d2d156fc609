import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  InvalidGrantError,
  InvalidRequestError,
  InvalidTargetError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthorizationParams } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { hashSecret } from '../auth/secret.js';
import {
  OAuthAuthorizationSchema,
  OAuthRefreshTokenSchema,
  type OAuthAuthorization,
} from './oauth.entity.js';
import { badInput } from '../errors/catalogue.js';
import { nativeQuery } from '../db/native.js';
import { grantObstacle } from './eligibility.js';
import { issueTokens, revokeFamily } from './token.service.js';
import { MAX_STATE_LENGTH, S256_CHALLENGE_RE } from './authorize-request.js';
import { sameResource } from './urls.js';

/** Time to sign in and consent. */
const AUTHORIZATION_TTL_MS = 15 * 60 * 1000;
/** OAuth 2.1 wants authorization codes short-lived. */
const CODE_TTL_MS = 2 * 60 * 1000;
/** Finished or abandoned flows are deleted a day after they expire. */
const RETENTION_MS = 24 * 60 * 60 * 1000;

/** The connector's only scope; unknown requested scopes are dropped (RFC 6749 §3.3 lets the server narrow). */
export const CONNECTOR_SCOPES = ['mcp'];

function randomId(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * Validates the rest of an authorization request (the SDK handler has checked the client and the
 * exact redirect URI) and stores it, returning the id the consent page carries.
 */
export async function beginAuthorization(
  em: EntityManager,
  client: OAuthClientInformationFull,
  params: AuthorizationParams,
  mcpResource: string,
  now = new Date(),
): Promise<string> {
  if (!S256_CHALLENGE_RE.test(params.codeChallenge)) {
    throw new InvalidRequestError('code_challenge must be a base64url-encoded SHA-256 digest (S256)');
  }
  if (params.state !== undefined && (params.state.length > MAX_STATE_LENGTH || params.state.includes('\0'))) {
    throw new InvalidRequestError(`state must be at most ${MAX_STATE_LENGTH} characters`);
  }
  if (params.resource && !sameResource(params.resource.href, mcpResource)) {
    throw new InvalidTargetError(`This server issues tokens only for ${mcpResource}`);
  }
  // Requests nobody approved are kept only while they can still be approved; decided flows a day
  // longer (a replayed code must still find its row to revoke what it produced).
  await em.nativeDelete(OAuthAuthorizationSchema, {
    $or: [
      { approvedAt: null, expiresAt: { $lt: now } },
      { expiresAt: { $lt: new Date(now.getTime() - RETENTION_MS) } },
    ],
  });
  const id = randomId();
  em.create(OAuthAuthorizationSchema, {
    id,
    client: client.client_id,
    redirectUri: params.redirectUri,
    codeChallenge: params.codeChallenge,
    state: params.state ?? null,
    scopes: CONNECTOR_SCOPES,
    resource: mcpResource,
    expiresAt: new Date(now.getTime() + AUTHORIZATION_TTL_MS),
  });
  await em.flush();
  return id;
}

export interface PendingAuthorization {
  id: string;
  clientId: string;
  clientName: string;
  redirectUri: string;
}

/** A flow waiting for consent, or null when unknown, expired or already decided. */
export async function findPending(
  em: EntityManager,
  id: string | undefined,
  now = new Date(),
): Promise<PendingAuthorization | null> {
  if (!id || !/^[A-Za-z0-9_-]{32}$/.test(id)) return null;
  const row = await em.findOne(OAuthAuthorizationSchema, { id }, { populate: ['client'] });
  if (!row || row.approvedAt || row.expiresAt.getTime() <= now.getTime()) return null;
  return {
    id: row.id,
    clientId: row.client.id,
    clientName: row.client.clientName ?? row.client.id,
    redirectUri: row.redirectUri,
  };
}

function redirectWith(redirectUri: string, params: Record<string, string | null>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== null) url.searchParams.set(k, v);
  return url.href;
}

/**
 * Records consent: binds the flow to the user and team and issues a one-time code. The update is
 * conditional on the flow still being pending, so a double-submitted form yields one code.
 * Returns the redirect back to the client, or null when the flow was already decided or expired.
 */
export async function approveAuthorization(
  em: EntityManager,
  id: string,
  userId: number,
  teamId: number,
  now = new Date(),
): Promise<string | null> {
  const code = randomBytes(32).toString('base64url');
  const updated = await em.nativeUpdate(
    OAuthAuthorizationSchema,
    { id, approvedAt: null, expiresAt: { $gt: now } },
    {
      approvedAt: now,
      user: userId,
      team: teamId,
      codeHash: hashSecret(code),
      expiresAt: new Date(now.getTime() + CODE_TTL_MS),
    },
  );
  if (updated !== 1) return null;
  const row = await em.findOneOrFail(OAuthAuthorizationSchema, { id });
  return redirectWith(row.redirectUri, { code, state: row.state ?? null });
}

/** The user declined (or could not choose a team): the client hears `access_denied`. */
export async function denyAuthorization(
  em: EntityManager,
  id: string,
  reason: string,
): Promise<string | null> {
  const row = await em.findOne(OAuthAuthorizationSchema, { id, approvedAt: null });
  if (!row) return null;
  await em.nativeDelete(OAuthAuthorizationSchema, { id });
  return redirectWith(row.redirectUri, {
    error: 'access_denied',
    error_description: reason,
    state: row.state ?? null,
  });
}

async function findByCode(
  em: EntityManager,
  clientId: string,
  code: string,
  now: Date,
): Promise<OAuthAuthorization> {
  const row = await em.findOne(OAuthAuthorizationSchema, { codeHash: hashSecret(code) });
  if (!row || row.client.id !== clientId) throw new InvalidGrantError('The authorization code is invalid');
  if (row.exchangedAt) {
    // OAuth 2.1 §4.1.3: a replayed code revokes what it already produced.
    if (row.family) await revokeFamily(em, row.family, now);
    throw new InvalidGrantError('The authorization code was already used; its tokens have been revoked');
  }
  if (row.expiresAt.getTime() <= now.getTime())
    throw new InvalidGrantError('The authorization code has expired');
  return row;
}

/** The PKCE challenge the code was issued against; the SDK token handler verifies the verifier. */
export async function challengeForCode(
  em: EntityManager,
  clientId: string,
  code: string,
  now = new Date(),
): Promise<string> {
  return (await findByCode(em, clientId, code, now)).codeChallenge;
}

/** Exchanges a code (once) for tokens bound to the resource the flow was started for. */
export async function exchangeCode(
  em: EntityManager,
  client: OAuthClientInformationFull,
  code: string,
  redirectUri: string | undefined,
  resource: URL | undefined,
  now = new Date(),
): Promise<OAuthTokens> {
  const row = await findByCode(em, client.client_id, code, now);
  if (redirectUri !== undefined && redirectUri !== row.redirectUri) {
    throw new InvalidGrantError('redirect_uri does not match the authorization request');
  }
  if (resource && !sameResource(resource.href, row.resource)) {
    throw new InvalidTargetError(`The authorization code was issued for ${row.resource}`);
  }
  if (!row.user || !row.team) throw new InvalidGrantError('The authorization code is invalid');
  const family = randomId();
  const claimed = await em.nativeUpdate(
    OAuthAuthorizationSchema,
    { id: row.id, exchangedAt: null },
    { exchangedAt: now, family },
  );
  if (claimed !== 1) throw new InvalidGrantError('The authorization code was already used');
  const obstacle = await grantObstacle(em, row.user.id, row.team.id);
  if (obstacle) throw new InvalidGrantError(`The grant is no longer valid: ${obstacle}`);
  return issueTokens(
    em,
    {
      family,
      clientId: client.client_id,
      clientName: client.client_name ?? null,
      userId: row.user.id,
      teamId: row.team.id,
      resource: row.resource,
      scopes: [...row.scopes],
    },
    now,
  );
}

/** A connected AI client: one grant (a refresh-token family) for one person in one team. */
export interface ConnectedClientView {
  /** The grant's id (its refresh-token family), used to disconnect it. */
  id: string;
  clientId: string;
  clientName: string;
  /** Where the client was sent back after consent: the host a person recognises. */
  redirectHost: string;
  userId: number;
  userEmail: string;
  connectedAt: Date;
  /** The last request made with any of the grant's access tokens. */
  lastUsedAt: Date | null;
}

interface GrantRow {
  family: string;
  client_id: string;
  client_name: string | null;
  redirect_uri: string;
  user_id: number;
  email: string;
  connected_at: Date;
  last_used_at: Date | null;
}

export function redirectHost(uri: string): string {
  try {
    const url = new URL(uri);
    return url.host || `${url.protocol}//`;
  } catch {
    return uri.slice(0, 100);
  }
}

/**
 * The team's live grants, newest first: those whose current refresh token is neither used, revoked
 * nor expired (a refresh leaves a used one behind, whose successor then carries the grant).
 */
export async function listConnectedClients(
  em: EntityManager,
  teamId: number,
  now = new Date(),
): Promise<ConnectedClientView[]> {
  const query = await nativeQuery(em);
  const rows = await query<GrantRow>(
    `select r.family, r.client_id, c.client_name, a.redirect_uri, r.user_id, u.email,
            coalesce(a.approved_at, a.created_at) as connected_at,
            (select max(t.last_used_at) from oauth_refresh_token f
               join access_token t on t.id = f.access_token_id where f.family = r.family) as last_used_at
       from oauth_refresh_token r
       join oauth_client c on c.id = r.client_id
       join app_user u on u.id = r.user_id
       join oauth_authorization a on a.family = r.family
      where r.team_id = $1 and r.used_at is null and r.revoked_at is null and r.expires_at > $2
      order by connected_at desc, r.id desc`,
    [teamId, now],
  );
  return rows.map((r) => ({
    id: r.family,
    clientId: r.client_id,
    clientName: r.client_name ?? r.client_id,
    redirectHost: redirectHost(r.redirect_uri),
    userId: r.user_id,
    userEmail: r.email,
    connectedAt: new Date(r.connected_at),
    lastUsedAt: r.last_used_at ? new Date(r.last_used_at) : null,
  }));
}

/**
 * Ends a grant: its refresh tokens and access tokens are revoked together, so the client's next
 * request with either is refused. Looked up within `scope` (a team, and for a member only their
 * own grants); anything else reads as not found.
 */
export async function disconnectClient(
  em: EntityManager,
  id: string,
  scope: { teamId: number | null; userId: number | null },
  now = new Date(),
): Promise<ConnectedClientView> {
  if (typeof id !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(id)) {
    throw badInput('id', 'must be the id of a connected client');
  }
  const live = await em.findOne(OAuthRefreshTokenSchema, {
    family: id,
    usedAt: null,
    revokedAt: null,
    expiresAt: { $gt: now },
    ...(scope.teamId ? { team: scope.teamId } : {}),
    ...(scope.userId ? { user: scope.userId } : {}),
  });
  if (!live) throw badInput('id', 'no connected client with this id: it may already be disconnected');
  const [view] = (await listConnectedClients(em, live.team.id, now)).filter((c) => c.id === id);
  await revokeFamily(em, id, now);
  return view;
}
