import { parseArgs } from 'node:util';
import { buildDemoDataset } from '../demo/dataset.js';
import { generateCorpus } from '../demo/corpus/index.js';

/**
 * `npm run demo:corpus -- --projects 12 --seed 42 --out .data/corpus`: writes the demo PDF corpus
 * and its manifest for the first N projects of the seeded demo catalogue (the same projects, with
 * the same keys, that the server seeds from that seed).
 */
const USAGE = 'usage: demo-corpus [--projects N] [--seed S] [--out DIR]';

function positiveInteger(value: string, name: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new Error(`--${name} must be a non-negative integer (got "${value}")\n${USAGE}`);
  return n;
}

const { values } = parseArgs({
  options: {
    projects: { type: 'string', default: '12' },
    seed: { type: 'string', default: '42' },
    out: { type: 'string', default: '.data/corpus' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(USAGE);
} else {
  const projects = positiveInteger(values.projects, 'projects');
  const seed = positiveInteger(values.seed, 'seed');
  const started = performance.now();
  const dataset = buildDemoDataset(seed, projects);
  const manifest = await generateCorpus({ projects: dataset.projects, seed, outDir: values.out });
  const counts = new Map<string, number>();
  for (const d of manifest.documents) counts.set(d.expect, (counts.get(d.expect) ?? 0) + 1);
  const summary = [...counts].map(([expect, n]) => `${n} ${expect}`).join(', ');
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `wrote ${manifest.documents.length} PDFs (${summary}) for ${projects} projects to ${values.out} in ${seconds}s`,
  );
}
