import Sequencer from '@jest/test-sequencer';

const DefaultSequencer = Sequencer.default ?? Sequencer;

/** The test that times a fresh `npm start` against its minute. */
const FRESH_START = /\/test\/e2e\/demo\/fresh-start\.test\.ts$/;
const UNIT = /\/test\/unit\//;

/**
 * Jest's order (failed first, then slowest first), except that the fresh-start test goes first
 * with the unit tests right behind it: while it runs, the other workers run light tests, so its
 * minute measures the start a newcomer sees, not the rest of the suite's load on a 2-core machine.
 */
export default class FreshStartFirst extends DefaultSequencer {
  async sort(tests) {
    const sorted = await super.sort(tests);
    const rank = (test) => (FRESH_START.test(test.path) ? 0 : UNIT.test(test.path) ? 1 : 2);
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}
