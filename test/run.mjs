// `npm test`: jest in two phases. First every test but the timed ones, on jest's workers side by
// side; then the timed ones (TIMED_FILES in jest.config.js), one at a time with nothing beside them, so
// that a bound on a start, a stall or an extractor's exit measures the service and not the rest of
// the suite's load on the machine. Arguments go to jest in both phases (`npm test -- test/unit`),
// and a phase none of whose files they select is skipped.
import { spawnSync } from 'node:child_process';
import { TIMED_FILES } from '../jest.config.js';

const args = process.argv.slice(2);
const jest = [
  '--experimental-vm-modules',
  '--no-warnings=ExperimentalWarning',
  'node_modules/jest/bin/jest.js',
];

function jestIn(phase, extra, stdio) {
  return spawnSync(process.execPath, [...jest, ...args, ...extra], {
    stdio,
    env: { ...process.env, TEST_PHASE: phase },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
}

// The files these arguments select, listed once: the phases with none of them are skipped.
const listed = jestIn('all', ['--listTests', '--json'], ['ignore', 'pipe', 'inherit']);
if (listed.status !== 0) process.exit(listed.status ?? 1);
const files = JSON.parse(listed.stdout);
const timed = (file) => TIMED_FILES.some((t) => file.endsWith(`/${t}`));
const phases = [];
if (files.some((f) => !timed(f))) phases.push('shared');
if (files.some(timed)) phases.push('alone');
// None selected: let jest say so in its own words (and fail) on the whole suite.
if (phases.length === 0) phases.push('all');

// Both phases run whatever the first one's outcome, so one run reports every failure.
let status = 0;
for (const phase of phases) {
  const run = jestIn(phase, phase === 'alone' ? ['--runInBand'] : [], 'inherit');
  if (run.status !== 0) status = run.status ?? 1;
}
process.exit(status);
