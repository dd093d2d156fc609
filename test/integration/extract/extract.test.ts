import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getDocumentProxy } from 'unpdf';
import { buildDemoDataset } from '../../../src/demo/dataset.js';
import {
  CONCEPTS,
  conceptQueries,
  NEAR_MISS_TEXTS,
  generateCorpus,
  type CorpusManifest,
} from '../../../src/demo/corpus/index.js';
import {
  closeExtractors,
  extractorsStarted,
  extractPdf,
  extractPdfDirect,
  MAX_JOBS_PER_EXTRACTOR,
  shouldRetire,
  type ExtractionResult,
} from '../../../src/ingestion/extract.js';
import { normalizeText } from '../../../src/search/text/normalize.js';
import { findFirstMatch } from '../../../src/search/query/match.js';
import { vocabularyOf } from '../../../src/search/text/compounds.js';
import { queryWords } from '../../../src/search/query/query-forms.js';
import { withCompounds } from '../../../src/search/query/spellings.js';
import { makePdf } from '../../support/pdf.js';
import { formatScanScore, scoreScans } from '../../support/ocr-score.js';
import { chunkPages } from '../../../src/search/text/chunk.js';
import {
  contentBombPdf,
  cyclicPageTreePdf,
  flateBombPdf,
  hugePageCountPdf,
  textHeavyPdf,
} from '../../support/hostile-pdf.js';

const SEED = 7;
const PROJECTS = 4;

let dir: string;
let manifest: CorpusManifest;
const results = new Map<string, ExtractionResult>();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pds-corpus-'));
  manifest = await generateCorpus({
    projects: buildDemoDataset(SEED, PROJECTS).projects,
    seed: SEED,
    outDir: dir,
  });
  await Promise.all(
    manifest.documents.map(async (d) =>
      // Scans are read at their own 200 dpi (the service renders at 300): CPU is short in CI.
      results.set(
        d.file,
        await extractPdf(await readFile(join(dir, d.file)), { ocr: { dpi: 200 }, timeoutMs: 120_000 }),
      ),
    ),
  );
}, 240_000);

afterAll(async () => {
  await closeExtractors();
  await rm(dir, { recursive: true, force: true });
});

function normalizedPages(file: string): string[] {
  return results.get(file)!.pages.map((p) => normalizeText(p.text));
}

const readable = () => manifest.documents.filter((d) => d.expect === 'text');

describe('demo corpus', () => {
  it('covers every category, every artifact profile and the unreadable cases', async () => {
    const written = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as CorpusManifest;
    expect(written).toEqual(manifest);
    expect(manifest.projects).toHaveLength(PROJECTS);
    expect(new Set(manifest.documents.map((d) => d.profile))).toEqual(
      new Set([
        'clean',
        'smart-quotes',
        'mojibake',
        'replacement-char',
        'ligatures',
        'nbsp',
        'soft-hyphens',
        'dashes',
        'line-end-hyphenation',
        'letter-spaced-headings',
        'two-column',
        'image-only',
        'corrupt',
        'encrypted',
      ]),
    );
    for (const category of [
      'brochure',
      'features-finishes',
      'price-list',
      'deposit-structure',
      'incentives',
      'fact-sheet',
    ]) {
      expect(manifest.documents.filter((d) => d.category === category).length).toBeGreaterThanOrEqual(
        PROJECTS,
      );
    }
    expect(manifest.documents.filter((d) => d.profile === 'corrupt')).toHaveLength(1);
    expect(manifest.documents.filter((d) => d.profile === 'encrypted')).toHaveLength(1);
    expect(manifest.documents.some((d) => d.pageCount > 1)).toBe(true);
  });

  it('links older revisions to the documents that supersede them', () => {
    const revised = manifest.documents.filter((d) => d.supersedesFile);
    expect(revised.length).toBeGreaterThan(0);
    for (const d of revised) {
      const index = manifest.documents.indexOf(d);
      const older = manifest.documents.findIndex((o) => o.file === d.supersedesFile);
      expect(older).toBeGreaterThanOrEqual(0);
      expect(older).toBeLessThan(index);
      expect(manifest.documents[older].projectKey).toBe(d.projectKey);
      expect(manifest.documents[older].category).toBe(d.category);
      expect(manifest.documents[older].sha256).not.toBe(d.sha256);
    }
  });

  it('is byte-for-byte the same for the same seed', async () => {
    const again = await mkdtemp(join(tmpdir(), 'pds-corpus-again-'));
    try {
      const projects = buildDemoDataset(SEED, 2).projects;
      const first = await generateCorpus({ projects, seed: SEED, outDir: again });
      const second = await generateCorpus({ projects, seed: SEED, outDir: again });
      expect(second).toEqual(first);
      const other = await generateCorpus({ projects, seed: SEED + 1, outDir: again });
      expect(other.documents.map((d) => d.sha256)).not.toEqual(first.documents.map((d) => d.sha256));
    } finally {
      await rm(again, { recursive: true, force: true });
    }
  });

  it('spreads concepts: some in most projects, some in one or two, the absent ones in none', () => {
    const projectsOf = new Map<string, Set<string>>();
    for (const d of readable()) {
      for (const f of d.facts)
        projectsOf.set(f.concept, (projectsOf.get(f.concept) ?? new Set()).add(d.projectKey));
    }
    const counts = [...projectsOf.values()].map((s) => s.size);
    expect(Math.max(...counts)).toBeGreaterThanOrEqual(PROJECTS - 1);
    expect(Math.min(...counts)).toBeLessThanOrEqual(2);
    for (const absent of manifest.absentConcepts) expect(projectsOf.has(absent)).toBe(false);
  });
});

describe('sandboxed extraction of the corpus', () => {
  it('yields the expected outcome for every document', () => {
    for (const d of manifest.documents) {
      const result = results.get(d.file)!;
      const expected = { text: 'completed', ocr: 'completed', failed: 'failed' }[d.expect];
      expect({ file: d.file, status: result.status }).toEqual({ file: d.file, status: expected });
      if (d.expect !== 'failed') expect(result.pageCount).toBe(d.pageCount);
      if (d.expect === 'ocr') expect(result.method).toBe('ocr');
    }
    const failure = (profile: string) =>
      results.get(manifest.documents.find((d) => d.profile === profile)!.file)!;
    expect(failure('corrupt').error).toMatch(/^corrupt PDF: \S/);
    expect(failure('encrypted').error).toBe('encrypted PDF (password required)');
  });

  it('keeps line breaks, so the chunker can overlap at line boundaries', () => {
    for (const d of readable()) {
      expect(results.get(d.file)!.pages[0].text.split('\n').length).toBeGreaterThan(3);
    }
  });

  it('finds every mention exactly as written, after normalization, on its page', () => {
    for (const d of readable()) {
      const pages = normalizedPages(d.file);
      for (const fact of d.facts) {
        const found = pages[fact.page - 1]?.includes(normalizeText(fact.surface)) ?? false;
        expect({ file: d.file, fact, found }).toEqual({ file: d.file, fact, found: true });
      }
    }
  });

  /** The corpus's vocabulary, as `search_vocabulary` would hold it after ingestion. */
  const vocabulary = () => new Set(vocabularyOf(readable().flatMap((d) => normalizedPages(d.file))));
  /** The terms the search runs for `query` against this corpus (synonyms, abbreviations, compounds). */
  const termsOf = (query: string, known: ReadonlySet<string>) =>
    withCompounds(queryWords(query).plain, known);

  it('finds every mention by each of its concept queries through the search post-filter', () => {
    const known = vocabulary();
    for (const d of readable()) {
      const pages = normalizedPages(d.file);
      for (const fact of d.facts) {
        // A printed size or price (the table family) is its own query.
        const concept = CONCEPTS.find((c) => c.query === fact.concept);
        for (const query of concept ? conceptQueries(concept) : [fact.concept]) {
          const match = findFirstMatch(pages[fact.page - 1], termsOf(query, known));
          expect({ file: d.file, fact, query, found: match !== null }).toEqual({
            file: d.file,
            fact,
            query,
            found: true,
          });
        }
      }
    }
  });

  it('has no mention the manifest does not record, and no trap matches (the ground truth is complete)', () => {
    const known = vocabulary();
    const queries = [
      ...CONCEPTS.flatMap((c) => conceptQueries(c).map((q) => ({ query: q, concept: c.query }))),
      ...manifest.absentConcepts.map((q) => ({ query: q, concept: q })),
      ...CONCEPTS.flatMap((c) => (c.traps ?? []).map((q) => ({ query: q, concept: `trap of ${c.query}` }))),
      ...NEAR_MISS_TEXTS.map((n) => ({ query: n.trap, concept: `near miss ${n.present}` })),
      // Every printed size and suite price, and what reading two table columns as one would find.
      ...[...new Set(readable().flatMap((d) => d.facts.map((f) => f.concept)))]
        .filter((value) => !CONCEPTS.some((c) => c.query === value))
        .map((value) => ({ query: value, concept: value })),
      ...readable().flatMap((d) => (d.traps ?? []).map((q) => ({ query: q, concept: `table trap ${q}` }))),
    ];
    for (const d of readable()) {
      normalizedPages(d.file).forEach((page, i) => {
        const recorded = new Set(d.facts.filter((f) => f.page === i + 1).map((f) => f.concept));
        for (const { query, concept } of queries) {
          const hit = findFirstMatch(page, termsOf(query, known)) !== null;
          if (hit)
            expect({ file: d.file, page: i + 1, query, recorded: recorded.has(concept) }).toMatchObject({
              recorded: true,
            });
        }
      });
    }
  });

  it('reads the scans by OCR: at least 95 % of their facts, no phantom and no absent term', () => {
    const scans = manifest.documents.filter((d) => d.expect === 'ocr');
    expect(scans.some((d) => d.facts.length > 0)).toBe(true);
    const known = new Set(vocabularyOf([...readable(), ...scans].flatMap((d) => normalizedPages(d.file))));
    const score = scoreScans(scans, normalizedPages, manifest.absentConcepts, known);
    console.log(formatScanScore(score));
    expect(score.found / score.facts).toBeGreaterThanOrEqual(0.95);
    expect(score.phantoms).toEqual([]);
    expect(score.absentHits).toEqual([]);
  });

  it('prints the near-miss sentences the traps are about', () => {
    const all = readable().flatMap((d) => normalizedPages(d.file));
    for (const n of NEAR_MISS_TEXTS)
      expect({ n, present: all.some((p) => p.includes(n.present)) }).toEqual({ n, present: true });
  });

  it('holds real text behind the password of the encrypted document', async () => {
    const d = manifest.documents.find((doc) => doc.profile === 'encrypted')!;
    const pdf = await getDocumentProxy(new Uint8Array(await readFile(join(dir, d.file))), {
      password: d.password,
      verbosity: 0,
    });
    const content = await (await pdf.getPage(1)).getTextContent();
    expect(content.items.map((item) => ('str' in item ? item.str : '')).join(' ')).toContain('Agreement');
  });

  it('gives the in-process baseline the same text as the worker', async () => {
    const d = readable()[0];
    const direct = await extractPdfDirect(await readFile(join(dir, d.file)));
    expect(direct.pages).toEqual(results.get(d.file)!.pages);
  });
});

describe('hostile input', () => {
  it('fails random bytes, a page tree cycle and an absurd page count with readable reasons', async () => {
    const random = Uint8Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256);
    expect(await extractPdf(random)).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/^corrupt PDF/),
    });
    expect(await extractPdf(cyclicPageTreePdf())).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('circular'),
    });
    expect(await extractPdf(hugePageCountPdf(50_000, 50_000), { maxPages: 2000 })).toMatchObject({
      status: 'failed',
      error: 'too many pages: the PDF claims 50000 pages, more than the 2000 allowed',
    });
    expect(await extractPdf(new Uint8Array(0))).toMatchObject({ status: 'failed' });
  });

  it('stops a file that keeps the parser busy at the timeout, and one that eats memory at the cap', async () => {
    // 30 kB on disk, 400,000 drawing operations once inflated.
    const bomb = contentBombPdf(400_000);
    const started = performance.now();
    expect(await extractPdf(bomb, { timeoutMs: 400 })).toMatchObject({
      status: 'failed',
      error: 'timed out after 400ms',
    });
    expect(performance.now() - started).toBeLessThan(2000);
    // 4 GiB of zeros once inflated, ~1 MB on disk: the OS limit refuses the extractor's allocations.
    expect(
      await extractPdf(flateBombPdf(4 * 1024 ** 3), { maxMemoryMb: 128, timeoutMs: 60_000 }),
    ).toMatchObject({
      status: 'failed',
      error: "exceeded memory: the extractor's 128 MB limit",
    });
  });

  it('fails documents over the object and text limits before they cost more', async () => {
    const pdf = textHeavyPdf(60_000);
    expect(await extractPdf(pdf, { maxObjects: 20 })).toMatchObject({
      status: 'failed',
      // Catalog, page tree, font, and a page with its content stream for each of the 11 pages.
      error: 'too many objects: the PDF has 25 objects, more than the 20 allowed',
    });
    expect(await extractPdf(pdf, { maxTextChars: 10_000 })).toMatchObject({
      status: 'failed',
      error: 'too much text: more than the 10000 characters allowed (by page 2)',
    });
    const whole = await extractPdf(pdf, { maxTextChars: 100_000, maxObjects: 100 });
    expect(whole).toMatchObject({ status: 'completed', pageCount: 11 });
    expect(whole.rawTextLength).toBeGreaterThan(59_000);
  });

  it('normalizes and chunks in the extractor when asked, sending the text back once', async () => {
    const pages = ['Quartz counter\u00ADtops and a 30\u2033 range', 'Page two: 9\u2032 ceilings'];
    const plain = await extractPdf(await makePdf(pages));
    const chunked = await extractPdf(await makePdf(pages), { chunk: true });
    expect(chunked).toMatchObject({ status: 'completed', pageCount: 2, pages: [] });
    expect(chunked.rawTextLength).toBe(plain.rawTextLength);
    expect(chunked.chunks).toEqual(chunkPages(plain.pages));
  });

  it('keeps working after failures, also with several documents at once', async () => {
    const good = await makePdf(['Quartz countertops\nand a 30" gas range', '', 'Page three']);
    const outcomes = await Promise.all([
      extractPdf(good),
      extractPdf(contentBombPdf(400_000), { timeoutMs: 300 }),
      extractPdf(good),
      extractPdf(Uint8Array.from([0x25, 0x50, 0x44, 0x46])),
      extractPdf(good),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual([
      'completed',
      'failed',
      'completed',
      'failed',
      'completed',
    ]);
    expect(outcomes[0].pages.map((p) => p.text)).toEqual([
      'Quartz countertops\nand a 30" gas range',
      '',
      'Page three',
    ]);
    expect(outcomes[0].rawTextLength).toBe(
      'Quartz countertops\nand a 30" gas range'.length + 'Page three'.length,
    );
  });

  it('reports no_text for a document whose pages have no text layer', async () => {
    const scanned = await makePdf(['', '']);
    expect(await extractPdf(scanned)).toMatchObject({ status: 'no_text', pageCount: 2, error: null });
  });
});

describe('warm extractors', () => {
  const MB = 1024 * 1024;

  it('retires an extractor on memory growth past a quarter of its limit, or at the backstop count', () => {
    expect(shouldRetire(1, 120 * MB, 120 * MB, 512)).toBe(false);
    expect(shouldRetire(5_000, 200 * MB, 120 * MB, 512)).toBe(false);
    expect(shouldRetire(5_000, 248 * MB, 120 * MB, 512)).toBe(false);
    expect(shouldRetire(5_000, 248 * MB + 1, 120 * MB, 512)).toBe(true);
    expect(shouldRetire(MAX_JOBS_PER_EXTRACTOR, 120 * MB, 120 * MB, 512)).toBe(true);
  });

  it('keeps one extractor past 250 documents while its memory stays flat', async () => {
    // A pool of its own (pools are per memory limit and size), so the count is this test's.
    const opts = { poolSize: 1, maxMemoryMb: 320 };
    const before = extractorsStarted();
    const pdf = await makePdf(['Quartz countertops and a 30" gas range']);
    for (let i = 0; i < 250; i++) {
      expect((await extractPdf(pdf, opts)).status).toBe('completed');
    }
    expect(extractorsStarted() - before).toBe(1);
  });

  it('replaces an extractor after a document that grew its memory, and the next one still completes', async () => {
    const opts = { poolSize: 1, maxMemoryMb: 256, timeoutMs: 60_000 };
    const small = await makePdf(['Quartz countertops']);
    const before = extractorsStarted();
    expect((await extractPdf(small, opts)).status).toBe('completed');
    // About 3 million characters: the extractor's memory grows by more than a quarter of its limit
    // (its young generation capped, the growth is the old space's) and stays there.
    const large = await extractPdf(textHeavyPdf(3_000_000), { ...opts, chunk: true });
    expect(large.status).toBe('completed');
    expect(extractorsStarted() - before).toBe(1);
    expect((await extractPdf(small, opts)).status).toBe('completed');
    expect(extractorsStarted() - before).toBe(2);
  });
});
