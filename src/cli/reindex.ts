import 'reflect-metadata';
import { createApp } from '../app.js';
import { loadConfig } from '../config.js';
import { DocumentSchema, ExtractionSchema } from '../documents/document.entity.js';
import { reindexAndQueue } from '../ingestion/ingest.service.js';

/**
 * `npm run reindex -- <documentId>|--all|--no-text`: re-extracts documents; search switches to each
 * new extraction when it completes. `--no-text`: every document whose current extraction found no
 * text (scans read before OCR, or with OCR off), so that they are read again.
 */
const USAGE = 'usage: npm run reindex -- <documentId>|--all|--no-text';
const arg = process.argv[2];
if (!arg || (arg !== '--all' && arg !== '--no-text' && !/^\d+$/.test(arg))) {
  console.error(USAGE);
  process.exit(2);
}
const app = await createApp(loadConfig(), { logger: false, worker: true });
const em = app.db.orm.em.fork();
const documentIds = async (where: object) =>
  (await em.find(DocumentSchema, where, { fields: ['id'] })).map((d) => d.id);
const ids =
  arg === '--all'
    ? await documentIds({})
    : arg === '--no-text'
      ? await documentIds({ currentExtraction: { status: 'no_text' } })
      : [Number(arg)];
const extractionIds: number[] = [];
for (const id of ids) {
  extractionIds.push((await reindexAndQueue(em, app.deps.ingestion.queue, id)).id);
}
await app.deps.ingestion.queue.idle();
const rows = await em.fork().find(ExtractionSchema, { id: { $in: extractionIds } });
const byStatus = rows.reduce<Record<string, number>>(
  (acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }),
  {},
);
console.log(`re-indexed ${rows.length} document(s): ${JSON.stringify(byStatus)}`);
await app.close();
