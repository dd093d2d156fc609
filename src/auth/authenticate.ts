import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors/catalogue.js';
import { nativeQuery } from '../db/native.js';
import { GENERATION_COLUMNS, generationsFor, isLater, noteGenerations } from '../db/generation.js';
import type { AgentTier, Plan, Role, SubscriptionStatus } from '../enums.js';
import { equalDigests, hashSecret, parseSecret, type SecretKind } from './secret.js';
import { connectorObstacle, isConnectorEligible } from './entitlements.js';
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

/**
 * The limiter key an API key's requests are charged to (the settings' usage page reads its window):
 * the id of the first key of its rotation, so a rolled key and the key it replaced share one window
 * during the overlap instead of each getting the full limit.
 */
export function apiKeyRateKey(windowKeyId: number): string {
  return `key:${windowKeyId}`;
}

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

/** The team columns every credential query reads, and their view. */
const TEAM_COLUMNS = `t.id as team_id, t.name as team_name, t.plan, t.agent_tier, t.subscription_status, t.past_due_since`;

interface TeamRow {
  team_id: number;
  team_name: string;
  plan: Plan;
  agent_tier: AgentTier;
  subscription_status: SubscriptionStatus;
  past_due_since: Date | null;
}

function teamView(row: TeamRow): TeamView {
  return {
    id: row.team_id,
    name: row.team_name,
    plan: row.plan,
    agentTier: row.agent_tier,
    subscriptionStatus: row.subscription_status,
    pastDueSince: row.past_due_since ? new Date(row.past_due_since) : null,
  };
}

interface CredentialRow extends TeamRow {
  id: number;
  secret_hash: string;
  scopes: string[];
  revoked_at: Date | null;
  expires_at: Date | null;
  last_used_at: Date | null;
}

function assertUsable(row: { revoked_at: Date | null; expires_at: Date | null }, now: Date): void {
  if (row.revoked_at) throw new AppError('CREDENTIAL_INVALID', 'The API key or token has been revoked');
  if (row.expires_at && new Date(row.expires_at).getTime() <= now.getTime()) {
    throw new AppError('CREDENTIAL_INVALID', 'The API key or token has expired');
  }
}

/** `lastUsedAt` is written at most once a minute per credential, so hot keys do not write on every call. */
function isStale(lastUsedAt: Date | null, now: Date): boolean {
  return !lastUsedAt || now.getTime() - new Date(lastUsedAt).getTime() >= LAST_USED_RESOLUTION_MS;
}

/** OAuth connector tokens stay valid only while the team holds an Agent/Enterprise subscription in good standing and the user is a member. */
function assertConnectorEntitled(team: TeamView): void {
  if (!isConnectorEligible(team)) {
    throw new AppError(
      'CREDENTIAL_INVALID',
      `The connector token is no longer valid: ${connectorObstacle(team)}`,
    );
  }
}

type KeyRow = CredentialRow & { window_key_id: number };
type TokenRow = CredentialRow & {
  kind: string;
  resource: string | null;
  user_id: number | null;
  email: string | null;
  user_name: string | null;
  role: Role | null;
};

const KEY_SQL = `select k.id, coalesce(k.window_key_id, k.id) as window_key_id, k.secret_hash, k.scopes, k.revoked_at, k.expires_at, k.last_used_at, ${TEAM_COLUMNS},
         ${GENERATION_COLUMNS}
    from api_key k join team t on t.id = k.team_id
   where k.secret_hash = $1`;

const TOKEN_SQL = `select a.id, a.kind, a.secret_hash, a.scopes, a.resource, a.revoked_at, a.expires_at, a.last_used_at,
         ${TEAM_COLUMNS}, u.id as user_id, u.email, u.name as user_name, m.role, ${GENERATION_COLUMNS}
    from access_token a join team t on t.id = a.team_id
    left join app_user u on u.id = a.user_id
    left join membership m on m.team_id = a.team_id and m.user_id = a.user_id
   where a.secret_hash = $1
   order by m.id limit 1`;

/**
 * Credentials as last read, by kind and secret hash, with the auth generation read in the same
 * statement (src/db/generation.ts). An entry serves a request only while no credential, team, user
 * or membership change has committed since (the request's generation is not later), so a
 * revocation or a downgrade bites on the next request on every node. Expiry, entitlement and
 * membership are judged again on every request, by the request's clock. Unknown secrets are not
 * kept. Bounded: past 10,000 entries it starts afresh.
 */
const credentials = new Map<string, { generation: string; row: KeyRow | TokenRow }>();
const MAX_CACHED_CREDENTIALS = 10_000;

/** The credential's row as of a snapshot taken after the request arrived; undefined when unknown. */
async function credentialRow<T extends KeyRow | TokenRow>(
  em: EntityManager,
  kind: 'key' | 'token',
  hash: string,
): Promise<T | undefined> {
  const cacheKey = `${kind}:${hash}`;
  const cached = credentials.get(cacheKey);
  if (cached && !isLater((await generationsFor(em)).auth, cached.generation)) return cached.row as T;
  const query = await nativeQuery(em);
  const [row] = await query<
    T & { auth_generation: string; catalogue_generation: string; search_generation: string }
  >(kind === 'key' ? KEY_SQL : TOKEN_SQL, [hash]);
  if (!row) {
    credentials.delete(cacheKey);
    return undefined;
  }
  // Read by this request after it arrived: its generations for the other caches too.
  const { auth } = await noteGenerations(em, row);
  if (credentials.size >= MAX_CACHED_CREDENTIALS) credentials.clear();
  credentials.set(cacheKey, { generation: auth, row });
  return row;
}

/** Stamps `last_used_at` when due, and remembers the stamp in the cached row. */
async function touch(em: EntityManager, table: 'api_key' | 'access_token', row: CredentialRow, now: Date) {
  if (!isStale(row.last_used_at, now)) return;
  const query = await nativeQuery(em);
  await query(`update ${table} set last_used_at = $1 where id = $2`, [now, row.id]);
  row.last_used_at = now;
}

/**
 * One round trip per request at most: the credential, its team and plan (and for a token its user
 * and that user's membership) in a single statement, or none when the cached row is current. This
 * runs before every operation of every facade.
 */
async function resolveToken(em: EntityManager, kind: SecretKind, hash: string, now: Date): Promise<Viewer> {
  if (kind === 'key') {
    const key = await credentialRow<KeyRow>(em, 'key', hash);
    if (!key || !equalDigests(key.secret_hash, hash)) throw new AppError('CREDENTIAL_INVALID');
    assertUsable(key, now);
    await touch(em, 'api_key', key, now);
    return {
      credential: { kind: 'api-key', id: key.id, rateKey: apiKeyRateKey(key.window_key_id), resource: null },
      team: teamView(key),
      user: null,
      role: null,
      scopes: [...key.scopes],
      isOperator: false,
    };
  }
  if (kind === 'mcp' || kind === 'oat') {
    const token = await credentialRow<TokenRow>(em, 'token', hash);
    const expectedKind = kind === 'mcp' ? 'personal' : 'oauth';
    if (!token || token.kind !== expectedKind || !equalDigests(token.secret_hash, hash)) {
      throw new AppError('CREDENTIAL_INVALID');
    }
    assertUsable(token, now);
    const team = teamView(token);
    if (token.user_id !== null && token.role === null)
      throw new AppError('CREDENTIAL_INVALID', "The token's user is no longer a member of the team");
    if (token.kind === 'oauth') assertConnectorEntitled(team);
    await touch(em, 'access_token', token, now);
    return {
      credential: {
        kind: token.kind === 'oauth' ? 'oauth-token' : 'personal-token',
        id: token.id,
        rateKey: `token:${token.id}`,
        resource: token.resource ?? null,
      },
      team,
      user:
        token.user_id !== null ? { id: token.user_id, email: token.email!, name: token.user_name! } : null,
      role: token.role,
      scopes: [...token.scopes],
      isOperator: false,
    };
  }
  // Refresh tokens are never bearer credentials.
  throw new AppError('CREDENTIAL_INVALID');
}

/** The configured operator token's digest, hashed once rather than on every request. */
let admin: { token: string; digest: string } | null = null;

function adminDigest(token: string): string {
  // Both sides are the configuration's value, never a caller's.
  if (admin?.token !== token) admin = { token, digest: hashSecret(token) };
  return admin.digest;
}

/**
 * Resolves a bearer secret to a Viewer, reading the key or token, its team and plan from the
 * database, or from a copy no older than the request (see `credentials`), so revocation and
 * downgrades bite on the next request.
 */
export async function authenticate(em: EntityManager, secret: string, opts: AuthOptions): Promise<Viewer> {
  const now = opts.now ?? new Date();
  let viewer: Viewer;
  const hash = hashSecret(secret);
  if (opts.adminToken && equalDigests(hash, adminDigest(opts.adminToken))) {
    viewer = operatorViewer();
  } else {
    const kind = parseSecret(secret);
    if (!kind) throw new AppError('CREDENTIAL_INVALID');
    viewer = await resolveToken(em, kind, hash, now);
  }
  if (!ACCEPTED[opts.transport].includes(viewer.credential.kind)) {
    throw new AppError('CREDENTIAL_INVALID', `This credential cannot be used for the ${opts.transport} API`);
  }
  return viewer;
}
