import { throwIfAborted } from '../errors/aborted.js';
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

/**
 * Searches across every project running at once in one process, whoever asks
 * (`SEARCH_CONCURRENCY`, default one fewer than the cores, at least one; 0 for no cap). A search
 * over a common term in every project keeps a core of the
 * database busy for as long as it runs; past this many, further searches wait their turn instead
 * of taking the last core from every other request. Turns are fair between credentials: a freed
 * slot goes to the waiting search whose credential has the fewest searches running (first come,
 * first served among equals), so one client's backlog never makes another client wait behind all
 * of it. A waiting search leaves the line when its request's deadline passes or its client goes
 * away.
 */
class SearchGate {
  private running = 0;
  private readonly runningBy = new Map<string, number>();
  private readonly waiting: { key: string; admit: () => void }[] = [];

  async run<T>(
    max: number,
    key: string,
    signal: AbortSignal | undefined,
    work: () => Promise<T>,
  ): Promise<T> {
    if (max === 0) return work();
    if (this.running >= max) await this.turn(key, signal);
    else this.take(key);
    try {
      throwIfAborted(signal);
      return await work();
    } finally {
      this.release(key);
    }
  }

  private take(key: string): void {
    this.running++;
    this.runningBy.set(key, (this.runningBy.get(key) ?? 0) + 1);
  }

  /** Resolves when a slot is handed over (the slot is then already counted as running). */
  private turn(key: string, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const entry = {
        key,
        admit: () => {
          signal?.removeEventListener('abort', leave);
          resolve();
        },
      };
      const leave = () => {
        const i = this.waiting.indexOf(entry);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal!.reason instanceof Error ? signal!.reason : new Error('aborted'));
      };
      if (signal?.aborted) return leave();
      signal?.addEventListener('abort', leave, { once: true });
      this.waiting.push(entry);
    });
  }

  private release(key: string): void {
    this.running--;
    const left = (this.runningBy.get(key) ?? 1) - 1;
    if (left > 0) this.runningBy.set(key, left);
    else this.runningBy.delete(key);
    if (this.waiting.length === 0) return;
    // The waiting search of the credential with the fewest running; the earliest among equals.
    let best = 0;
    for (let i = 1; i < this.waiting.length; i++) {
      if ((this.runningBy.get(this.waiting[i].key) ?? 0) < (this.runningBy.get(this.waiting[best].key) ?? 0))
        best = i;
    }
    const [next] = this.waiting.splice(best, 1);
    this.take(next.key);
    next.admit();
  }

  /** For tests and the bench: searches running and waiting now. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }
}

const gate = new SearchGate();

/**
 * A search: within its credential's cap (refused past it), then, for a search across every project,
 * its turn among this process's searches. A search within one project is bounded by that project's
 * size and runs at once, so a client's question about one project never waits behind another's
 * search of the whole corpus.
 */
export function boundedSearch<T>(
  ctx: Pick<RequestContext, 'viewer' | 'deps'> & { signal?: AbortSignal },
  scope: 'project' | 'global',
  work: () => Promise<T>,
): Promise<T> {
  if (scope === 'project') return boundedPerCredential(ctx, work);
  return boundedPerCredential(ctx, () =>
    gate.run(
      ctx.deps.config.searchConcurrency,
      ctx.viewer?.credential.rateKey ?? 'anonymous',
      ctx.signal,
      work,
    ),
  );
}

/** Searches running and waiting in this process (tests). */
export function searchLoad(): { running: number; waiting: number } {
  return gate.load;
}
