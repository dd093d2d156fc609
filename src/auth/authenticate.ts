import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors/catalogue.js';
import { AccessTokenSchema, ApiKeySchema, MembershipSchema, type Team } from '../entities/index.js';
import { hashSecret, parseSecret, safeEqual, type SecretKind } from './secret.js';
import { operatorViewer, type CredentialKind, type TeamView, type Viewer } from './viewer.js';

export type Transport = 'graphql' | 'rest' | 'mcp';

/** Which credential kinds each transport accepts. */
const ACCEPTED: Record<Transport, readonly CredentialKind[]> = {
  rest: ['api-key', 'operator'],
  mcp: ['personal-token', 'oauth-token', 'operator'],
  graphql: ['api-key', 'personal-token', 'oauth-token', 'operator', 'session'],
};

export function accepts(transport: Transport, kind: CredentialKind): boolean {
  return ACCEPTED[transport].includes(kind);
}

const LAST_USED_RESOLUTION_MS = 60_000;

export interface AuthOptions {
  transport: Transport;
  adminToken: string | null;
  now?: Date;
}

/**
 * Extracts the secret from an Authorization header. REST also accepts a bare key; the tool server
 * requires the word Bearer and one space.
 */
export function readBearer(header: string | undefined, transport: Transport): string | null {
  if (header === undefined || header.trim() === '') return null;
  const m = /^Bearer (\S+)$/i.exec(header.trim());
  if (m) return m[1];
  if (transport === 'rest' && /^\S+$/.test(header.trim())) return header.trim();
  throw new AppError('CREDENTIAL_INVALID', 'Malformed Authorization header: expected "Bearer <token>"');
}

function teamView(team: Team): TeamView {
  return {
    id: team.id,
    name: team.name,
    plan: team.plan,
    agentTier: team.agentTier,
    subscriptionStatus: team.subscriptionStatus,
  };
}

function assertUsable(row: { revokedAt?: Date | null; expiresAt?: Date | null }, now: Date): void {
  if (row.revokedAt) throw new AppError('CREDENTIAL_INVALID', 'The API key or token has been revoked');
  if (row.expiresAt && row.expiresAt.getTime() <= now.getTime()) {
    throw new AppError('CREDENTIAL_INVALID', 'The API key or token has expired');
  }
}

/** `lastUsedAt` is written at most once a minute per credential, so hot keys do not write on every call. */
function isStale(lastUsedAt: Date | null | undefined, now: Date): boolean {
  return !lastUsedAt || now.getTime() - lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS;
}

/** OAuth connector tokens stay valid only while the team holds an active Agent/Enterprise subscription and the user is a member. */
function assertConnectorEntitled(team: TeamView): void {
  if (team.agentTier === 'none' || team.subscriptionStatus !== 'active') {
    throw new AppError(
      'CREDENTIAL_INVALID',
      'The connector token is no longer valid: the team needs an active Agent or Enterprise subscription',
    );
  }
}

async function resolveToken(em: EntityManager, kind: SecretKind, hash: string, now: Date): Promise<Viewer> {
  if (kind === 'key') {
    const key = await em.findOne(ApiKeySchema, { secretHash: hash }, { populate: ['team'] });
    if (!key || !safeEqual(key.secretHash, hash)) throw new AppError('CREDENTIAL_INVALID');
    assertUsable(key, now);
    if (isStale(key.lastUsedAt, now))
      await em.nativeUpdate(ApiKeySchema, { id: key.id }, { lastUsedAt: now });
    return {
      credential: { kind: 'api-key', id: key.id, rateKey: `key:${key.id}`, resource: null },
      team: teamView(key.team),
      user: null,
      role: null,
      scopes: [...key.scopes],
      isOperator: false,
    };
  }
  if (kind === 'mcp' || kind === 'oat') {
    const token = await em.findOne(AccessTokenSchema, { secretHash: hash }, { populate: ['team', 'user'] });
    const expectedKind = kind === 'mcp' ? 'personal' : 'oauth';
    if (!token || token.kind !== expectedKind || !safeEqual(token.secretHash, hash)) {
      throw new AppError('CREDENTIAL_INVALID');
    }
    assertUsable(token, now);
    const team = teamView(token.team);
    let role = null;
    if (token.user) {
      const membership = await em.findOne(MembershipSchema, { team: team.id, user: token.user.id });
      if (!membership)
        throw new AppError('CREDENTIAL_INVALID', "The token's user is no longer a member of the team");
      role = membership.role;
    }
    if (token.kind === 'oauth') assertConnectorEntitled(team);
    if (isStale(token.lastUsedAt, now)) {
      await em.nativeUpdate(AccessTokenSchema, { id: token.id }, { lastUsedAt: now });
    }
    return {
      credential: {
        kind: token.kind === 'oauth' ? 'oauth-token' : 'personal-token',
        id: token.id,
        rateKey: `token:${token.id}`,
        resource: token.resource ?? null,
      },
      team,
      user: token.user ? { id: token.user.id, email: token.user.email, name: token.user.name } : null,
      role,
      scopes: [...token.scopes],
      isOperator: false,
    };
  }
  // Refresh tokens are never bearer credentials.
  throw new AppError('CREDENTIAL_INVALID');
}

/**
 * Resolves a bearer secret to a Viewer, reading the key or token, its team and plan from the
 * database (never from a cache), so revocation and downgrades bite on the next request.
 */
export async function authenticate(em: EntityManager, secret: string, opts: AuthOptions): Promise<Viewer> {
  const now = opts.now ?? new Date();
  let viewer: Viewer;
  if (opts.adminToken && safeEqual(secret, opts.adminToken)) {
    viewer = operatorViewer();
  } else {
    const kind = parseSecret(secret);
    if (!kind) throw new AppError('CREDENTIAL_INVALID');
    viewer = await resolveToken(em, kind, hashSecret(secret), now);
  }
  if (!ACCEPTED[opts.transport].includes(viewer.credential.kind)) {
    throw new AppError('CREDENTIAL_INVALID', `This credential cannot be used for the ${opts.transport} API`);
  }
  return viewer;
}
