import { resolve } from 'node:path';
import { checkRepository, findDiaryWording } from '../../src/cli/check-wording.js';

/** `npm run lint`'s wording check: the development diary is refused, the product's own words pass. */
// The refused phrases are assembled at run time, so this file does not itself carry the wording it
// tests (repository-wide searches for it stay clean).
const ISSUE = 'issue';
const BULLET = 'bullet';
const SESSION = 'session';

describe('wording check', () => {
  it.each([
    ['README.md', `Layering rules (${ISSUE} 12), run by lint`],
    ['README.md', `as the seventeenth ${SESSION} measured`],
    ['docs/operations.md', `see ${BULLET} 4 above`],
    [
      'test/integration/limits/extraction.test.ts',
      ` * I${ISSUE.slice(1)} 12, ${BULLET} 4: extraction memory is bounded`,
    ],
    ['src/a.ts', '// Issues 12 and 13 asked for this'],
    ['CHANGELOG.md', '- Fixed in round 3 of the work'],
    ['docs/benchmarks.md', 'the eleventh round gave ×1.2'],
    ['src/a.ts', '  // planning took 0.28 ms of the request'],
    ['src/a.ts', ' * encodes it in 9 µs'],
    ['.ci/run', '# each call takes 1.5 ms here'],
  ])('flags %s: %s', (file, line) => {
    expect(findDiaryWording(file, `first line\n${line}\n`)).toEqual([
      expect.objectContaining({ file, line: 2, text: line.trim() }),
    ]);
  });

  it.each([
    [
      'src/users/session.service.ts',
      '/** Sessions last a working day; signing in again starts a new one. */',
    ],
    ['src/oauth/consent.routes.ts', 'const session = await findSession(em, secret);'],
    ['test/e2e/oauth/session.test.ts', "describe('sign-in pages and sessions', () => {"],
    ['src/search/query/search-cache.ts', " * changed. A search's first round trip reads the generations"],
    ['test/bench/run.ts', '/** Rounds of (facade, operation in process) in the MCP figure. */'],
    ['test/bench/run.ts', "that the runs after it did not (the MCP facade's first round came out above"],
    ['src/matching/floorplan-match.ts', 'const round4 = (n: number) => Math.round(n * 10_000) / 10_000;'],
    [
      'src/config.ts',
      '/** A store call slower than this fails (default: Redis 100 ms, PostgreSQL 1000 ms). */',
    ],
    ['docs/benchmarks.md', '| Floor Plan Match, one request ≤ 8 ms server time | 1.88 ms | yes |'],
    ['src/a.ts', 'const label = `took ${ms.toFixed(2)} ms`;'],
    ['docs/graphql.md', 'A user in several teams sends `X-Team-Id` with the session cookie.'],
  ])('passes %s: %s', (file, line) => {
    expect(findDiaryWording(file, line)).toEqual([]);
  });

  it('finds nothing in the repository', () => {
    expect(checkRepository(resolve(import.meta.dirname, '../..'))).toEqual([]);
  });
});
