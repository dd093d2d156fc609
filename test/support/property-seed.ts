import fc from 'fast-check';

/**
 * Every property test runs with one fixed seed, so a run is repeatable and a failure reproduces:
 * fast-check prints the seed and the counterexample's path in its failure message. Set FC_SEED to
 * explore other inputs, and PROPERTY_RUNS_FACTOR to multiply the runs of the fuzz suites
 * (`PROPERTY_RUNS_FACTOR=20 npm test -- test/e2e/fuzz`).
 */
export const PROPERTY_SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : 20261127;

fc.configureGlobal({ seed: PROPERTY_SEED });
