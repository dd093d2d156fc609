import { runningInCi } from './chromium.js';

/**
 * A suite that needs something outside the process (PostgreSQL through DATABASE_URL, Redis, the
 * PostgreSQL server binaries, Chromium). Where it is missing the suite is skipped with its reason
 * printed; under CI (which provides all of them) a missing dependency is a failing test instead,
 * so nothing that CI is meant to run can silently skip there.
 */
export function describeWith(present: boolean, reason: string): jest.Describe {
  if (present) return describe;
  if (runningInCi()) return missingInCi(reason, describe) as unknown as jest.Describe;
  process.stderr.write(`skipped (${reason}): ${expect.getState().testPath ?? ''}\n`);
  return describe.skip;
}

/** The same for one test. */
export function itWith(present: boolean, reason: string): jest.It {
  if (present) return it;
  if (runningInCi())
    return missingInCi(reason, (name: string, fn: () => void) => describe(name, fn)) as unknown as jest.It;
  return it.skip;
}

function missingInCi(reason: string, group: (name: string, fn: () => void) => void) {
  return (name: string) =>
    group(name, () => {
      it(`has what it needs: ${reason}`, () => {
        throw new Error(`CI is set but this test's dependency is missing: ${reason}`);
      });
    });
}
