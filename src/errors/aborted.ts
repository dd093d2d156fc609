/** Why a request's work stops early: its deadline passed, or its client went away. */
export class DeadlineExceeded extends Error {
  constructor(readonly timeoutMs: number) {
    super(`Request deadline of ${timeoutMs} ms exceeded`);
    this.name = 'DeadlineExceeded';
  }
}

export class ClientGone extends Error {
  constructor() {
    super('The client closed the connection');
    this.name = 'ClientGone';
  }
}

/** Throws the signal's reason when the request it belongs to should do no more work. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new ClientGone();
}
