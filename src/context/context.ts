import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import { accepts, authenticate, readBearer, type Transport } from '../auth/authenticate.js';
import { requireFusionAccess } from '../auth/entitlements.js';
import type { RateDecision, RateLimiter, RatePolicyName } from '../auth/rate-limit.js';
import type { Viewer } from '../auth/viewer.js';
import type { AppConfig } from '../config.js';
import type { FusionScope } from '../enums.js';
import { AppError } from '../errors/catalogue.js';
import { DatabaseUnavailable, RequestEnded, throwIfAborted } from '../errors/aborted.js';
import { unavailableError } from '../db/availability.js';
import { refusals } from '../metrics/metrics.js';
import { RequestLoaders } from './loaders.js';
import type { DatabaseAvailability } from '../db/availability.js';

/**
 * Credentials whose rules belong to a feature, plugged in by the composition root (src/app.ts):
 * sessions from src/users, the connector tokens' audience from src/oauth.
 */
export interface FeatureAuth {
  /** The session cookie's value on a request, if any (GraphQL accepts sessions). */
  sessionCookie(request: FastifyRequest): string | undefined;
  /** Where a browser that is not signed in is sent to sign in (it comes back to `next`). */
  signInPath: string;
  /** A session's viewer: CREDENTIAL_INVALID when it expired or was signed out. */
  session(em: EntityManager, value: string, teamId: string | undefined, now: Date): Promise<Viewer>;
  /** Refuses (CREDENTIAL_INVALID) a token bound to another resource than this transport's (RFC 8707). */
  assertAudience(viewer: Viewer, transport: Transport): void;
}

/**
 * What every transport shares: one database, one limiter, one config. Features add what they
 * share by augmenting this interface (src/ingestion/ingestion.ts adds `ingestion`,
 * src/documents/pdf.ts `documentPdfs`).
 */
export interface AppDeps {
  em: EntityManager;
  /** Whether the database is reachable, learnt from the queries this process runs. */
  availability: DatabaseAvailability;
  limiter: RateLimiter;
  config: AppConfig;
  log: FastifyBaseLogger;
  auth: FeatureAuth;
  /** The time credentials, sessions and roll-overs are judged by (tests move it instead of waiting). */
  clock: () => Date;
}

export interface ContextRequest {
  transport: Transport;
  authorization: string | undefined;
  ip: string;
  requestId: string;
  /** The Fusion scope the operation needs (REST routes): checked before the rate limit. */
  scope?: FusionScope;
  /** Limiter policy charged for this request; defaults to the transport's. */
  ratePolicy?: RatePolicyName;
  /** GraphQL lets anonymous callers reach `_service` and public fields; everything else requires a viewer. */
  allowAnonymous?: boolean;
  /** The session cookie's value, used only when there is no Authorization header (GraphQL). */
  session?: string;
  /** `X-Team-Id`: the team a session acts for when its user belongs to several. */
  teamId?: string;
  /** The request's deadline and disconnect signal (src/http/deadline.ts); aborted work stops. */
  signal?: AbortSignal;
}

export interface RequestContext {
  requestId: string;
  transport: Transport;
  viewer: Viewer | null;
  em: EntityManager;
  /** Batch reads shared by the resolvers of this request (features define them: src/context/loaders.ts). */
  loaders: RequestLoaders;
  /** The rate-limit decision for this request, for the facades' headers. */
  rate: RateDecision | null;
  /** Aborted when the deadline passes or the client disconnects: checked before each batch of reads. */
  signal: AbortSignal;
  deps: AppDeps;
}

/** In-process callers (CLIs, tests) that pass no signal. */
const NEVER_ABORTED = new AbortController().signal;

const DEFAULT_POLICY: Record<Transport, RatePolicyName> = { graphql: 'graphql', mcp: 'mcp', rest: 'graphql' };

/**
 * The one context: credential → team → plan → scopes → rate limit, before any resolver work.
 * Throws AppError (CREDENTIAL_*, SCOPE_MISSING, PLAN_UPGRADE_REQUIRED, RATE_LIMITED); each
 * facade maps those to its wire format in one place.
 */
export async function createContext(req: ContextRequest, deps: AppDeps): Promise<RequestContext> {
  try {
    return await buildContext(req, deps);
  } catch (err) {
    // The deadline and disconnect errors are answered by the HTTP layer; a database that cannot
    // answer (authentication reads it) is the catalogue's 503, never a 500.
    if (err instanceof RequestEnded) throw err;
    deps.availability.suspect(err);
    throw unavailableError(err, deps.config.overload.retryAfterSeconds) ?? err;
  }
}

async function buildContext(req: ContextRequest, deps: AppDeps): Promise<RequestContext> {
  const signal = req.signal ?? NEVER_ABORTED;
  throwIfAborted(signal);
  // While an outage is declared, nothing is asked of the database: 503 at once.
  if (deps.availability.current().state === 'down') {
    refusals.inc({ reason: 'database' });
    throw unavailableError(new DatabaseUnavailable(), deps.config.overload.retryAfterSeconds)!;
  }
  const em = deps.em.fork();
  const secret = readBearer(req.authorization, req.transport);
  const session = secret === null && accepts(req.transport, 'session') ? req.session : undefined;
  let viewer: Viewer | null = null;
  if (secret === null && !session) {
    if (!req.allowAnonymous) {
      throw new AppError(
        'CREDENTIAL_MISSING',
        req.transport === 'rest'
          ? 'No API key supplied: send Authorization: Bearer <API_KEY>'
          : 'No access token supplied: send Authorization: Bearer <ACCESS_TOKEN>',
      );
    }
  } else {
    // An address over its failed-credential limit is refused whatever it sends, the right secret
    // included: read before the secret's verdict is known (alongside it, so no latency is added),
    // so a refusal says nothing about whether the secret was valid.
    const failures = deps.limiter.consume('auth-failure', `ip:${req.ip}`, 0);
    try {
      const verdict =
        secret !== null
          ? authenticate(em, secret, {
              transport: req.transport,
              adminToken: deps.config.adminToken,
              now: deps.clock(),
            })
          : deps.auth.session(em, session!, req.teamId, deps.clock());
      const [before, resolved] = await Promise.allSettled([failures, verdict]);
      if (before.status === 'fulfilled' && !before.value.allowed) throw rateLimited(before.value);
      if (resolved.status === 'rejected') throw resolved.reason;
      viewer = resolved.value;
      deps.auth.assertAudience(viewer, req.transport);
    } catch (err) {
      if (err instanceof AppError && err.code === 'CREDENTIAL_INVALID') {
        // Failed authentication is charged to the caller's address, never to a key.
        const guard = await deps.limiter.consume('auth-failure', `ip:${req.ip}`);
        if (!guard.allowed) throw rateLimited(guard);
      }
      throw err;
    }
  }
  if (req.scope) {
    if (!viewer) throw new AppError('CREDENTIAL_MISSING');
    requireFusionAccess(viewer, req.scope);
  }
  const policy = req.ratePolicy ?? DEFAULT_POLICY[req.transport];
  const rateKey = viewer ? viewer.credential.rateKey : `anon:${req.ip}`;
  const rate = await deps.limiter.consume(policy, rateKey);
  if (!rate.allowed) throw rateLimited(rate);
  // In memory only: the counts reach PostgreSQL in the background (src/usage/usage.counter.ts).
  if (viewer) deps.usage.count(viewer, deps.clock());
  throwIfAborted(signal);
  return {
    requestId: req.requestId,
    transport: req.transport,
    viewer,
    em,
    loaders: new RequestLoaders(em, signal),
    rate,
    signal,
    deps,
  };
}

function rateLimited(decision: RateDecision): AppError {
  const retry = decision.retryAfterSeconds ?? decision.resetSeconds;
  return new AppError('RATE_LIMITED', `Rate limit exceeded: retry in ${retry} seconds`, {
    retryAfterSeconds: retry,
    rate: { limit: decision.limit, remaining: decision.remaining, resetSeconds: decision.resetSeconds },
  });
}

export { rateLimited };
