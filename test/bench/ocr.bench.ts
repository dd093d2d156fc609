import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { EXTRACTION_DEFAULTS } from '../../src/config.js';
import { buildDemoDataset } from '../../src/demo/dataset.js';
import { generateCorpus } from '../../src/demo/corpus/index.js';
import { closeExtractors, extractPdf, type ExtractionResult } from '../../src/ingestion/extract.js';
import { pageImage } from '../../src/ingestion/ocr.js';
import { vocabularyOf } from '../../src/search/text/compounds.js';
import { normalizeText } from '../../src/search/text/normalize.js';
import { stallMonitor } from '../support/event-loop.js';
import { formatScanScore, scoreScans, type ScanScore } from '../support/ocr-score.js';

const run = promisify(execFile);

export interface OcrFigure {
  documents: number;
  pages: number;
  dpi: number;
  /** One warm extractor reading every scan in turn: pdf.js, rendering, despeckling, recognition. */
  service: { seconds: number; pagesPerSecond: number };
  /** The `tesseract` command on the same page images, one page at a time on one thread; null: absent. */
  native: { seconds: number; pagesPerSecond: number; version: string } | { skipped: string };
  /** The service's pages per second over the command's (goal ≥ 0.5). */
  ratio: number | null;
  /** This process's event loop while the extractor recognized: longest stall, wall and own CPU. */
  stall: { wallMs: number; ownMs: number };
  score: Omit<ScanScore, 'missed' | 'phantoms' | 'absentHits'> & {
    missed: number;
    phantoms: number;
    absentHits: number;
  };
  scoreText: string;
  goals: string[];
}

/** The page images the service recognizes (ocr.ts pageImage), written as PGM files for the command. */
async function pageImages(pdfs: Buffer[], dpi: number, dir: string): Promise<string[]> {
  const mupdf = await import('mupdf');
  const files: string[] = [];
  for (const [d, bytes] of pdfs.entries()) {
    const doc = mupdf.Document.openDocument(bytes, 'application/pdf');
    for (let n = 1; n <= doc.countPages(); n++) {
      const file = join(dir, `scan-${d}-${n}.pgm`);
      await writeFile(file, pageImage(mupdf, doc, n, dpi));
      files.push(file);
    }
    doc.destroy();
  }
  return files;
}

async function nativeBaseline(files: string[], dpi: number): Promise<OcrFigure['native']> {
  let version: string;
  try {
    const { stdout, stderr } = await run('tesseract', ['--version']);
    version = `${stdout}${stderr}`.split('\n')[0].trim();
  } catch {
    return { skipped: 'the tesseract command is not installed (apt-get install tesseract-ocr)' };
  }
  // One thread, as one extractor has: Tesseract would otherwise spread a page over OpenMP threads.
  const env = { ...process.env, OMP_THREAD_LIMIT: '1' };
  const started = performance.now();
  for (const file of files) {
    await run(
      'tesseract',
      [file, '-', '--oem', '1', '--psm', '3', '--dpi', String(dpi), '-l', 'eng', 'tsv'],
      {
        env,
        maxBuffer: 64 * 1024 * 1024,
      },
    );
  }
  const seconds = (performance.now() - started) / 1000;
  return { seconds: round(seconds), pagesPerSecond: round(files.length / seconds, 3), version };
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * OCR: the demo corpus's scans (the 12 projects `npm start` seeds) read by one warm extractor at
 * the service's default resolution, against Debian's `tesseract` on the same page images in the
 * same run, with recall and phantoms by fact and this process's event loop watched meanwhile.
 */
export async function runOcrBench(opts: { log: (line: string) => void }): Promise<OcrFigure> {
  const dir = await mkdtemp(join(tmpdir(), 'pds-ocr-bench-'));
  try {
    const manifest = await generateCorpus({
      projects: buildDemoDataset(42, 12).projects,
      seed: 42,
      outDir: dir,
    });
    const scans = manifest.documents.filter((d) => d.expect === 'ocr');
    const pdfs = await Promise.all(scans.map((d) => readFile(join(dir, d.file))));
    const dpi = EXTRACTION_DEFAULTS.ocr.dpi;
    const pages = scans.reduce((n, d) => n + d.pageCount, 0);
    opts.log(`  ocr: ${scans.length} scans, ${pages} pages at ${dpi} dpi; warming one extractor`);
    const one = { poolSize: 1, timeoutMs: 600_000 };
    await extractPdf(pdfs[0], one);
    const results = new Map<string, ExtractionResult>();
    const monitor = stallMonitor();
    const started = performance.now();
    for (const [i, d] of scans.entries()) results.set(d.file, await extractPdf(pdfs[i], one));
    const seconds = (performance.now() - started) / 1000;
    const stall = monitor.stop();
    const failed = [...results].filter(([, r]) => r.status !== 'completed');
    if (failed.length)
      throw new Error(`OCR bench: ${failed.map(([f, r]) => `${f} ${r.status} ${r.error}`).join('; ')}`);
    const pagesOf = (file: string) => results.get(file)!.pages.map((p) => normalizeText(p.text));
    const known = new Set(vocabularyOf(scans.flatMap((d) => pagesOf(d.file))));
    const score = scoreScans(scans, pagesOf, manifest.absentConcepts, known);
    opts.log('  ocr: the tesseract command on the same page images');
    const native = await nativeBaseline(await pageImages(pdfs, dpi, dir), dpi);
    const service = { seconds: round(seconds), pagesPerSecond: round(pages / seconds, 3) };
    return {
      documents: scans.length,
      pages,
      dpi,
      service,
      native,
      ratio: 'pagesPerSecond' in native ? round(service.pagesPerSecond / native.pagesPerSecond) : null,
      stall,
      score: {
        ...score,
        missed: score.missed.length,
        phantoms: score.phantoms.length,
        absentHits: score.absentHits.length,
      },
      scoreText: formatScanScore(score),
      goals: [
        'recall of the scans’ facts ≥ 95 %, 0 phantoms, 0 absent-term hits',
        'OCR pages per second per extractor ≥ 0.5× the tesseract command on the same page images',
      ],
    };
  } finally {
    await closeExtractors();
    await rm(dir, { recursive: true, force: true });
  }
}
