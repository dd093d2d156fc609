import { AppError } from '../errors/catalogue.js';
import type { RequestContext } from './context.js';

/**
 * Searches one credential may have running at once in one process
 * (`SEARCHES_IN_FLIGHT_PER_CREDENTIAL`, default 2, 0 for no cap). Rate limits count requests
 * per minute; a search over a term found in most chunks holds a database connection for seconds,
 * so a client firing them on schedule inside its rate limit would otherwise hold the whole pool
 * and everyone else would queue behind it. Past this, the search is refused at once (429 with
 * Retry-After: 1) before it touches the database.
 */
const inFlight = new Map<string, number>();

export async function boundedPerCredential<T>(
  ctx: Pick<RequestContext, 'viewer' | 'deps'>,
  work: () => Promise<T>,
): Promise<T> {
  const max = ctx.deps.config.searchesInFlightPerCredential;
  if (max === 0) return work();
  const key = ctx.viewer?.credential.rateKey ?? 'anonymous';
  const running = inFlight.get(key) ?? 0;
  if (running >= max) {
    throw new AppError(
      'RATE_LIMITED',
      `Too many searches at once for this credential (at most ${max} in flight): retry in 1 second`,
      { retryAfterSeconds: 1 },
    );
  }
  inFlight.set(key, running + 1);
  try {
    return await work();
  } finally {
    const left = (inFlight.get(key) ?? 1) - 1;
    if (left > 0) inFlight.set(key, left);
    else inFlight.delete(key);
  }
}
