import { boundedPerCredential, boundedSearch, searchLoad } from '../../src/context/in-flight.js';
import { AppError } from '../../src/errors/catalogue.js';

/** A credential's searches in flight are capped per process; others are not affected. */
const ctx = (rateKey: string, cap = 2) =>
  ({
    viewer: { credential: { rateKey } },
    deps: { config: { searchesInFlightPerCredential: cap } },
  }) as unknown as Parameters<typeof boundedPerCredential>[0];

function held(): { promise: Promise<string>; release: () => void } {
  let release!: () => void;
  const promise = new Promise<string>((resolve) => (release = () => resolve('done')));
  return { promise, release };
}

describe('searches in flight per credential', () => {
  it('refuses the third at once with RATE_LIMITED and Retry-After 1, lets other credentials through, and frees slots', async () => {
    const a = held();
    const b = held();
    const first = boundedPerCredential(ctx('key:1'), () => a.promise);
    const second = boundedPerCredential(ctx('key:1'), () => b.promise);
    const third = boundedPerCredential(ctx('key:1'), () => Promise.resolve('never'));
    await expect(third).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      details: { retryAfterSeconds: 1 },
      message: expect.stringContaining('at most 2 in flight'),
    });
    await expect(third).rejects.toBeInstanceOf(AppError);
    await expect(boundedPerCredential(ctx('key:2'), () => Promise.resolve('other'))).resolves.toBe('other');
    a.release();
    await expect(first).resolves.toBe('done');
    await expect(boundedPerCredential(ctx('key:1'), () => Promise.resolve('again'))).resolves.toBe('again');
    b.release();
    await expect(second).resolves.toBe('done');
  });

  it('frees the slot when the work fails, and caps nothing at 0', async () => {
    await expect(
      boundedPerCredential(ctx('key:3', 1), () => Promise.reject(new Error('boom'))),
    ).rejects.toThrow('boom');
    await expect(boundedPerCredential(ctx('key:3', 1), () => Promise.resolve('ok'))).resolves.toBe('ok');
    const hold = held();
    const many = Array.from({ length: 5 }, () => boundedPerCredential(ctx('key:4', 0), () => hold.promise));
    hold.release();
    await expect(Promise.all(many)).resolves.toEqual(Array(5).fill('done'));
  });
});

/** At most SEARCH_CONCURRENCY searches run at once per process, whoever asks; the rest wait in turn. */
const searchCtx = (rateKey: string, concurrency: number, signal?: AbortSignal) =>
  ({
    viewer: { credential: { rateKey } },
    deps: { config: { searchesInFlightPerCredential: 2, searchConcurrency: concurrency } },
    signal,
  }) as unknown as Parameters<typeof boundedSearch>[0];

describe('searches running at once per process', () => {
  it('runs one at a time at 1: the others wait first come, first served, and start as slots free', async () => {
    const started: string[] = [];
    const a = held();
    const b = held();
    const first = boundedSearch(searchCtx('key:10', 1), 'global', () => (started.push('a'), a.promise));
    const second = boundedSearch(searchCtx('key:11', 1), 'global', () => (started.push('b'), b.promise));
    const third = boundedSearch(
      searchCtx('key:12', 1),
      'global',
      () => (started.push('c'), Promise.resolve('c')),
    );
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a']);
    expect(searchLoad()).toEqual({ running: 1, waiting: 2 });
    a.release();
    await expect(first).resolves.toBe('done');
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a', 'b']);
    b.release();
    await expect(second).resolves.toBe('done');
    await expect(third).resolves.toBe('c');
    expect(started).toEqual(['a', 'b', 'c']);
    expect(searchLoad()).toEqual({ running: 0, waiting: 0 });
  });

  it("is fair between credentials: a freed slot goes to the credential with the fewest running, not to one client's backlog", async () => {
    const started: string[] = [];
    const holds = { a1: held(), a2: held(), a3: held(), b1: held() };
    const run = (key: string, name: keyof typeof holds, max = 2) =>
      boundedSearch(searchCtx(key, max), 'global', () => (started.push(name), holds[name].promise));
    // key:50 fills both slots and queues a third; key:51 comes later but runs before it.
    const a1 = run('key:50', 'a1');
    const a2 = run('key:50', 'a2');
    await new Promise((r) => setImmediate(r));
    const a3 = boundedSearch(
      {
        ...searchCtx('key:50', 2),
        deps: { config: { searchesInFlightPerCredential: 3, searchConcurrency: 2 } },
      } as never,
      'global',
      () => (started.push('a3'), holds.a3.promise),
    );
    const b1 = run('key:51', 'b1');
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a1', 'a2']);
    holds.a1.release();
    await a1;
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a1', 'a2', 'b1']);
    holds.a2.release();
    await a2;
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a1', 'a2', 'b1', 'a3']);
    holds.b1.release();
    holds.a3.release();
    await Promise.all([b1, a3]);
    expect(searchLoad()).toEqual({ running: 0, waiting: 0 });
  });

  it('a waiting search leaves the line when its request is aborted, without taking a slot', async () => {
    const hold = held();
    const running = boundedSearch(searchCtx('key:20', 1), 'global', () => hold.promise);
    const controller = new AbortController();
    let ran = false;
    const waiting = boundedSearch(
      searchCtx('key:21', 1, controller.signal),
      'global',
      () => ((ran = true), Promise.resolve('x')),
    );
    await new Promise((r) => setImmediate(r));
    expect(searchLoad().waiting).toBe(1);
    controller.abort(new Error('deadline'));
    await expect(waiting).rejects.toThrow('deadline');
    expect(searchLoad()).toEqual({ running: 1, waiting: 0 });
    hold.release();
    await expect(running).resolves.toBe('done');
    expect(ran).toBe(false);
    expect(searchLoad()).toEqual({ running: 0, waiting: 0 });
  });

  it('a search within one project never waits for a slot (only its credential cap applies)', async () => {
    const hold = held();
    const global = boundedSearch(searchCtx('key:60', 1), 'global', () => hold.promise);
    await expect(
      boundedSearch(searchCtx('key:61', 1), 'project', () => Promise.resolve('now')),
    ).resolves.toBe('now');
    expect(searchLoad()).toEqual({ running: 1, waiting: 0 });
    hold.release();
    await expect(global).resolves.toBe('done');
  });

  it('frees the slot when a search fails, and caps nothing at 0', async () => {
    await expect(
      boundedSearch(searchCtx('key:30', 1), 'global', () => Promise.reject(new Error('boom'))),
    ).rejects.toThrow('boom');
    expect(searchLoad()).toEqual({ running: 0, waiting: 0 });
    const hold = held();
    const many = Array.from({ length: 4 }, (_, i) =>
      boundedSearch(searchCtx(`key:4${i}`, 0), 'global', () => hold.promise),
    );
    await new Promise((r) => setImmediate(r));
    expect(searchLoad()).toEqual({ running: 0, waiting: 0 });
    hold.release();
    await expect(Promise.all(many)).resolves.toEqual(Array(4).fill('done'));
  });
});
