/** Jest runs in native ESM mode (MikroORM 7 is ESM-only); @swc/jest keeps legacy decorators and their metadata. */
const swc = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
  },
  module: { type: 'es6' },
  sourceMaps: 'inline',
};

/**
 * The timed tests: their bounds (a fresh start searchable within a minute, an event-loop stall, an
 * orphaned extractor's exit) hold for the service on the machine, and the extractors they wait on
 * run at a lower CPU priority than everything else by design (src/ingestion/extract.ts). The heap
 * test's processes must collect before the system's memory limit refuses them memory, a race
 * between their allocation and V8's concurrent marker for the CPU. `npm test` (test/run.mjs) runs
 * them after the rest, one at a time, so that the rest of the suite does not take their CPU.
 */
export const TIMED_FILES = [
  'test/e2e/demo/fresh-start.test.ts',
  'test/integration/limits/extraction.test.ts',
  'test/integration/extract/extractor-process.test.ts',
  'test/integration/extract/extract-heap.test.ts',
];
const TIMED = TIMED_FILES.map((file) => `<rootDir>/${file}`);

/** TEST_PHASE (set by test/run.mjs): `shared` runs all but the timed tests, `alone` only them. */
const phase = process.env.TEST_PHASE;

export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', swc] },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: phase === 'alone' ? TIMED : ['<rootDir>/test/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', ...(phase === 'shared' ? TIMED : [])],
  // One migrated database template per run, cloned by every test app (test/support/template.ts).
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  // One fixed fast-check seed for every property test (FC_SEED overrides it).
  setupFilesAfterEnv: ['<rootDir>/test/support/property-seed.ts'],
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 60000,
  // Three, on 2 cores: much of a test's time is spent waiting on PostgreSQL, child processes and timers,
  // so a third worker shortens the run on both PostgreSQL and PGlite.
  maxWorkers: 3,
};
