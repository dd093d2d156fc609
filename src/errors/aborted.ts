/**
 * Why a request's work stops early: its deadline passed, its client went away, or a database
 * outage was declared while it waited. The HTTP layer has answered (or nobody listens).
 */
export class RequestEnded extends Error {}

export class DeadlineExceeded extends RequestEnded {
  constructor(readonly timeoutMs: number) {
    super(`Request deadline of ${timeoutMs} ms exceeded`);
    this.name = 'DeadlineExceeded';
  }
}

export class ClientGone extends RequestEnded {
  constructor() {
    super('The client closed the connection');
    this.name = 'ClientGone';
  }
}

export class DatabaseUnavailable extends RequestEnded {
  constructor() {
    super('The database is unavailable');
    this.name = 'DatabaseUnavailable';
  }
}

/** Throws the signal's reason when the request it belongs to should do no more work. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new ClientGone();
}
