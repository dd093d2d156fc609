import { boundedPerCredential } from '../../src/context/in-flight.js';
import { AppError } from '../../src/errors/catalogue.js';

/** Issue 12: a credential's searches in flight are capped per process; others are not affected. */
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
