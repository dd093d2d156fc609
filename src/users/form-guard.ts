import type { FastifyRequest } from 'fastify';
import type { RateDecision, RatePolicyName } from '../auth/rate-limit.js';
import type { AppConfig } from '../config.js';
import type { AppDeps } from '../context/context.js';

/**
 * Browsers send Origin (and Sec-Fetch-Site) with form POSTs: a POST from another site to the login,
 * logout or consent forms is refused, which stops login CSRF. Non-browser clients send neither.
 */
export function isCrossSitePost(request: FastifyRequest, config: Pick<AppConfig, 'publicBaseUrl'>): boolean {
  const fetchSite = request.headers['sec-fetch-site'];
  if (fetchSite === 'cross-site') return true;
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  // `Origin: null` comes from pages under a `no-referrer` policy (one a proxy may add) as well as
  // from sandboxed frames: only Sec-Fetch-Site, which pages cannot set, tells them apart.
  if (origin === 'null') return fetchSite !== 'same-origin';
  return origin !== new URL(config.publicBaseUrl).origin;
}

/** Charges one request from the caller's address to a policy (interactive OAuth pages and endpoints). */
export function chargeAddress(
  deps: Pick<AppDeps, 'limiter'>,
  policy: RatePolicyName,
  request: FastifyRequest,
): Promise<RateDecision> {
  return deps.limiter.consume(policy, `ip:${request.ip}`);
}

/** Reads one string field of a parsed form; repeated or missing fields read as undefined. */
export function formField(body: unknown, name: string): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}
