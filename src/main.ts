import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { createApp } from './app.js';
import { ConfigError, loadConfig, type AppConfig } from './config.js';
import { generateSecret } from './auth/secret.js';
import { installProcessGuards, stopOnSignals } from './process-guard.js';
import { operatorTokenForRun, startBanner } from './demo/banner.js';
import { seedDemo, seedDemoDocuments, type DemoCredentials } from './demo/seed.js';
import { DocumentSchema, ExtractionSchema } from './documents/document.entity.js';

const startedAt = performance.now();

function readConfig(): AppConfig {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
}

const base = readConfig();
const { adminToken, generated } = operatorTokenForRun(base, () =>
  generateSecret('key').replace('pds_key_', 'pds_op_'),
);
const config: AppConfig = Object.freeze({ ...base, adminToken });
const app = await createApp(config, { worker: config.extractionInApi });
installProcessGuards({ log: app.server.log, role: 'api', shutdown: () => app.close() });
let demo: DemoCredentials | null = null;
if (config.embedded && config.demoSeed) demo = await seedDemo(app);
await app.server.listen({ host: config.host, port: config.port });
console.log(startBanner(config, generated, demo, performance.now() - startedAt));
// The corpus is generated and queued after the server listens: it answers at once, and search
// coverage grows as extraction proceeds (meta.coverage shows how far it got).
const corpusQueued = demo
  ? (await seedDemoDocuments(app, { projects: config.demoCorpusProjects, dataDir: config.dataDir })).queued
  : 0;
if (corpusQueued > 0) {
  console.log(
    `\nIngesting the demo corpus (${corpusQueued} PDFs) in the background; the server is already answering.`,
  );
  const ingestStarted = performance.now();
  void app.deps.ingestion.queue
    .idle()
    .then(() => reportDocuments(performance.now() - ingestStarted))
    .catch((err: unknown) => app.server.log.error({ err }, 'demo corpus ingestion failed'));
} else if (demo) {
  await reportDocuments(null);
}

/** Prints the demo documents by extraction status, so a newcomer sees what search can reach. */
async function reportDocuments(ms: number | null): Promise<void> {
  const em = app.db.orm.em.fork();
  const docs = await em.find(
    DocumentSchema,
    {},
    { populate: ['currentExtraction', 'project'], orderBy: { id: 'asc' } },
  );
  const byStatus = new Map<string, number>();
  for (const d of docs) {
    const status = d.currentExtraction?.status ?? 'pending';
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  }
  const pages = (await em.find(ExtractionSchema, { status: 'completed' })).reduce(
    (n, e) => n + e.pageCount,
    0,
  );
  const summary = [...byStatus].map(([status, n]) => `${n} ${status}`).join(', ');
  console.log(
    `Demo documents: ${docs.length} (${summary}), ${pages} pages indexed${ms === null ? '' : ` in ${(ms / 1000).toFixed(1)} s`}.`,
  );
  for (const d of docs.filter((x) => x.currentExtraction?.status !== 'completed').slice(0, 10)) {
    console.log(
      `  ${d.currentExtraction?.status ?? 'pending'}: ${d.project.name} / ${d.name}${d.currentExtraction?.error ? ` (${d.currentExtraction.error})` : ''}`,
    );
  }
}

stopOnSignals(app.server.log, () => app.close());
