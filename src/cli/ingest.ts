import 'reflect-metadata';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { createApp } from '../app.js';
import { loadConfig } from '../config.js';
import { ExtractionSchema } from '../documents/document.entity.js';
import { AppError } from '../errors/catalogue.js';
import { uploadAndQueue } from '../ingestion/ingest.service.js';
import { parseId } from '../errors/validate.js';

/**
 * `npm run ingest -- <file-or-folder>... --project <id> --category <category> [--supersedes <documentId>]`
 * Uploads PDFs and waits for their extraction, with a progress line (files, pages, rate, errors).
 */
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    project: { type: 'string' },
    category: { type: 'string' },
    supersedes: { type: 'string' },
    type: { type: 'string' },
  },
});
if (!positionals.length || !values.project || !values.category) {
  console.error(
    'usage: npm run ingest -- <file-or-folder>... --project <id> --category <category> [--supersedes <documentId>] [--type <type>]',
  );
  process.exit(2);
}

function pdfFiles(path: string): string[] {
  if (statSync(path).isDirectory()) {
    return readdirSync(path)
      .sort()
      .flatMap((f) => pdfFiles(join(path, f)));
  }
  return extname(path).toLowerCase() === '.pdf' ? [path] : [];
}

const files = positionals.flatMap(pdfFiles);
const config = loadConfig();
const app = await createApp(config, { logger: false, worker: true });
const em = app.db.orm.em.fork();
const started = Date.now();
const errors: string[] = [];
const extractionIds: number[] = [];
let done = 0;

const bar = (n: number, total: number) => {
  const width = 30;
  const filled = total ? Math.round((n / total) * width) : width;
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
};

for (const file of files) {
  try {
    const outcome = await uploadAndQueue(
      em,
      app.deps.ingestion.queue,
      {
        projectId: parseId('--project', values.project),
        category: values.category,
        name: basename(file),
        type: values.type ?? null,
        content: readFileSync(file),
        supersedesDocumentId:
          files.length === 1 && values.supersedes ? parseId('--supersedes', values.supersedes) : null,
      },
      config.maxUploadBytes,
    );
    if (outcome.extractionId) {
      extractionIds.push(outcome.extractionId);
    } else {
      errors.push(`${file}: already stored as document ${outcome.document.id}`);
    }
  } catch (err) {
    errors.push(`${file}: ${err instanceof AppError ? err.message : String(err)}`);
  }
  done++;
  process.stdout.write(`\rupload  ${bar(done, files.length)} ${done}/${files.length} files`);
}
process.stdout.write('\n');

for (;;) {
  const rows = extractionIds.length
    ? await em.fork().find(ExtractionSchema, { id: { $in: extractionIds } })
    : [];
  const finished = rows.filter((r) => !['pending', 'processing'].includes(r.status));
  const pages = finished.reduce((n, r) => n + r.pageCount, 0);
  const seconds = (Date.now() - started) / 1000;
  process.stdout.write(
    `\rextract ${bar(finished.length, extractionIds.length)} ${finished.length}/${extractionIds.length} documents, ${pages} pages, ${(pages / seconds).toFixed(1)} pages/s`,
  );
  if (finished.length === extractionIds.length) {
    for (const r of finished)
      if (r.status === 'failed') errors.push(`extraction ${r.id}: ${r.error ?? 'failed'}`);
    break;
  }
  await new Promise((r) => setTimeout(r, 250));
}
process.stdout.write('\n');
await app.close();
if (errors.length) {
  console.error(`${errors.length} problem(s):\n  ${errors.join('\n  ')}`);
  process.exit(1);
}
