import type { FastifyRequest } from 'fastify';
import type { RateDecision, RatePolicyName } from '../auth/rate-limit.js';
import type { AppConfig } from '../config.js';
import type { AppDeps } from '../context/context.js';
import { UNSTORABLE_TEXT } from '../errors/text.js';

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

/**
 * Failed sign-ins are counted per address (`auth-failure`, which failed API credentials share)
 * and per account (`sign-in-account`, from every address together). One attacker hammering from
 * one address exhausts only that address; one spraying an account from many addresses exhausts
 * only that account, for at most the account window (5 minutes). Both are read BEFORE the
 * password is hashed, so a refused attempt costs no scrypt: the limits bound the work, not only
 * the answers.
 */
export interface SignInLimits {
  /** The refusal to answer before any password work, or null to go on. */
  before(): Promise<RateDecision | null>;
  /** Charges a failed attempt to both; the refusal when that took either past its limit. */
  failed(): Promise<RateDecision | null>;
}

export function signInLimits(
  deps: Pick<AppDeps, 'limiter'>,
  request: FastifyRequest,
  email: string,
): SignInLimits {
  const keys = [
    ['auth-failure', `ip:${request.ip}`],
    ['sign-in-account', `account:${email.trim().toLowerCase().slice(0, 320)}`],
  ] as const;
  const charge = async (points: number) => {
    const decisions = await Promise.all(
      keys.map(([policy, key]) => deps.limiter.consume(policy, key, points)),
    );
    const refused = decisions.filter((d) => !d.allowed);
    // The longest wait of the two is the one that matters to the caller.
    return refused.length
      ? refused.reduce((a, b) => ((a.retryAfterSeconds ?? 0) >= (b.retryAfterSeconds ?? 0) ? a : b))
      : null;
  };
  return { before: () => charge(0), failed: () => charge(1) };
}

/**
 * Reads one string field of a parsed form; repeated or missing fields, and text PostgreSQL cannot
 * store (NUL, unpaired surrogates), read as undefined: a form never sends such text to the database.
 */
export function formField(body: unknown, name: string): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' && !UNSTORABLE_TEXT.test(value) ? value : undefined;
}
