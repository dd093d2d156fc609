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

export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', swc] },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // One migrated database template per run, cloned by every test app (test/support/template.ts).
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  // One fixed fast-check seed for every property test (FC_SEED overrides it).
  setupFilesAfterEnv: ['<rootDir>/test/support/property-seed.ts'],
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // The fresh-start test first, beside light tests (jest.sequencer.js).
  testSequencer: '<rootDir>/jest.sequencer.js',
  testTimeout: 60000,
  // Three, on 2 cores: much of a test's time is spent waiting on PostgreSQL, child processes and timers,
  // so a third worker shortens the run on both PostgreSQL and PGlite.
  maxWorkers: 3,
};
