import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDemoDataset } from '../../../src/demo/dataset.js';
import { seedDemoDocuments } from '../../../src/demo/seed.js';
import { ChunkSchema, DocumentSchema } from '../../../src/documents/document.entity.js';
import {
  CONCEPTS,
  conceptQueries,
  NEAR_MISS_TEXTS,
  type ConceptFamily,
  type CorpusManifest,
} from '../../../src/demo/corpus/index.js';
import { findProjectsMentioning, searchDocumentText } from '../../../src/search/search.service.js';
import { SEARCH_LIMIT, PROJECTS_MENTIONING_LIMIT } from '../../../src/limits.js';
import { LAYOUT_PROFILES, TEXT_PROFILES } from '../../../src/demo/corpus/manifest.js';
import { normalizeText } from '../../../src/search/text/normalize.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { ensureSearchIndex } from '../../../src/db/search-index.js';
import {
  addMember,
  createAccessToken,
  createProject,
  createTeam,
  createUser,
  memberToken,
} from '../../support/factories.js';
import { ContractClient, nullablePaths, observedNulls } from '../../support/mcp-contract.js';
import { itWith } from '../../support/requirements.js';
import { makePdf, UPLOAD } from '../../support/pdf.js';

/** The generated corpus goes through the real pipeline: upload → pdf.js in a worker → chunks in the database. */
let t: TestApp;
let dir: string;
let manifest: CorpusManifest;
const PROJECTS = 6;

beforeAll(async () => {
  t = await startTestApp();
  dir = mkdtempSync(join(tmpdir(), 'pds-corpus-'));
  for (const p of buildDemoDataset(42, PROJECTS).projects) {
    await t.op(`mutation($input: CreateProjectInput!) { createProject(input: $input) { id } }`, {
      input: { name: p.name, slug: p.key, city: p.city, developerName: p.developerName },
    });
  }
  const outcome = await seedDemoDocuments(t.app, { projects: PROJECTS, dataDir: dir });
  expect(outcome.queued).toBeGreaterThan(20);
  await t.app.deps.ingestion.queue.idle();
  manifest = JSON.parse(readFileSync(join(outcome.directory, 'manifest.json'), 'utf8')) as CorpusManifest;
}, 120_000);

afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Whether this run is on PostgreSQL (DATABASE_URL), where both search index paths exist. */
const ON_POSTGRES = !!process.env.DATABASE_URL;

async function stored(name: string, projectKey: string) {
  const em = t.app.deps.em.fork();
  const doc = await em.findOneOrFail(
    DocumentSchema,
    { name, project: { slug: projectKey } },
    { populate: ['currentExtraction'] },
  );
  const chunks = await em.find(
    ChunkSchema,
    { extraction: doc.currentExtraction!.id },
    { orderBy: { chunkIndex: 'asc' } },
  );
  return { doc, extraction: doc.currentExtraction!, chunks };
}

describe('demo corpus through the ingestion pipeline', () => {
  it('reaches the expected status for every document', async () => {
    for (const d of manifest.documents) {
      const { extraction } = await stored(d.name, d.projectKey);
      const expected = d.expect === 'failed' ? 'failed' : 'completed';
      expect({ file: d.file, status: extraction.status }).toEqual({ file: d.file, status: expected });
      if (expected === 'failed') expect(extraction.error).toMatch(/corrupt|encrypted/);
    }
  });

  it('stores every ground-truth surface, for every artifact profile, on its page', async () => {
    const profiles = new Set<string>();
    let facts = 0;
    for (const d of manifest.documents.filter((x) => x.expect === 'text')) {
      const { chunks } = await stored(d.name, d.projectKey);
      for (const fact of d.facts) {
        const surface = normalizeText(fact.surface);
        const onPage = chunks.filter((c) => c.pageNumber === fact.page);
        expect({
          file: d.file,
          profile: d.profile,
          surface,
          found: onPage.some((c) => c.searchText.includes(surface)),
        }).toEqual({
          file: d.file,
          profile: d.profile,
          surface,
          found: true,
        });
        facts++;
      }
      profiles.add(d.profile);
    }
    expect(facts).toBeGreaterThan(100);
    // Every profile that writes text (letter-spaced headings carry no facts of their own).
    for (const p of [...TEXT_PROFILES, ...LAYOUT_PROFILES.filter((l) => l !== 'letter-spaced-headings')]) {
      expect(profiles).toContain(p);
    }
  });

  it('keeps older revisions as historical documents', async () => {
    const revised = manifest.documents.filter((d) => d.supersedesFile);
    expect(revised.length).toBeGreaterThan(0);
    for (const d of revised) {
      const older = manifest.documents.find((x) => x.file === d.supersedesFile)!;
      const { doc: oldDoc } = await stored(older.name, older.projectKey);
      const { doc: newDoc } = await stored(d.name, d.projectKey);
      expect(oldDoc.isLatest).toBe(false);
      expect(newDoc.isLatest).toBe(true);
      expect(newDoc.supersedes?.id).toBe(oldDoc.id);
    }
  });

  it('every excerpt shows its match: over every hit of every ground-truth surface, the normalized excerpt contains the matched term', async () => {
    const { secret } = await memberToken(t, 'elite');
    const surfaces = [...new Set(manifest.documents.flatMap((d) => d.facts.map((f) => f.surface)))];
    expect(surfaces.length).toBeGreaterThan(10);
    const missing: { query: string; term: string; excerpt: string }[] = [];
    let hits = 0;
    for (const query of surfaces) {
      const res = await t.gql(
        `query($q: String!) { searchDocumentText(query: $q, includeHistorical: true, limit: 25) { data { excerpt matchedTerm } } }`,
        { q: query },
        secret,
      );
      expect(res.errors).toBeUndefined();
      for (const hit of res.data.searchDocumentText.data as { excerpt: string; matchedTerm: string }[]) {
        hits++;
        if (!normalizeText(hit.excerpt).includes(hit.matchedTerm))
          missing.push({ query, term: hit.matchedTerm, excerpt: hit.excerpt });
      }
    }
    expect(hits).toBeGreaterThan(surfaces.length);
    expect(missing).toEqual([]);
  }, 120_000);

  it('every nullable field of the tool outputs is null in some result over the corpus, and every result matches the committed schema', async () => {
    // The states the corpus does not leave behind once its queue is idle: a project published with
    // only a name and a city, and a stored document whose extraction has not run yet.
    const bare = await createProject(t, { name: 'Bare Minimum', city: 'Hamilton', developerName: null });
    await t.app.deps.em
      .fork()
      .getConnection()
      .execute(
        `insert into document (project_id, name, category, content_hash, byte_size, content, created_at)
         values (?, 'waiting.pdf', 'brochure', md5('waiting'), 1, '\\x00', now())`,
        [bare.id],
      );
    // A revision with a line changed, one removed and one added: a comparison's null sides.
    const revise = async (name: string, text: string, supersedes?: number) => {
      const res = await t.gql(
        UPLOAD,
        {
          input: {
            projectId: bare.id,
            name,
            category: 'price-list',
            contentBase64: (await makePdf([text])).toString('base64'),
            supersedesDocumentId: supersedes,
          },
        },
        t.operator,
      );
      return res.data.uploadDocument.document.id as number;
    };
    const older = await revise('prices-v1.pdf', 'Suite 1A $500,000\nParking $45,000');
    const newer = await revise('prices-v2.pdf', 'Suite 1A $510,000\nLocker $6,000', older);
    await t.app.deps.ingestion.queue.idle();
    const team = await createTeam(t, { plan: 'elite' });
    const user = await createUser(t);
    await addMember(t, team.id, user.id);
    const { secret } = await createAccessToken(t, team.id, user.id);
    const client = new ContractClient({ name: 'corpus-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${secret}` } },
      }),
    );
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args });
      expect({ name, isError: result.isError ?? false }).toEqual({ name, isError: false });
      return result.structuredContent as { data: Record<string, any>[]; meta: Record<string, any> };
    };

    const projectIds: number[] = [];
    for (let page = 1; ; page++) {
      const listed = await call('list-projects', { page, per_page: 25 });
      projectIds.push(...listed.data.map((p) => p.project_id as number));
      if (page >= listed.meta.total_pages) break;
    }
    expect(projectIds).toContain(bare.id);
    for (const id of projectIds)
      await call('list-project-documents', { project_id: id, include_historical: true });
    const term = manifest.documents.find((d) => d.expect === 'text' && d.facts.length)!.facts[0].surface;
    await call('find-projects-mentioning', { query: term, include_historical: true });
    const hits = await call('search-document-text', { query: term, include_historical: true, limit: 25 });
    expect(hits.data.length).toBeGreaterThan(0);
    await call('fetch-document-context', { chunk_id: hits.data[0].chunk_id, before: 5, after: 5 });
    const compared = await call('compare-document-revisions', { document_id: newer });
    expect(compared.data.map((c) => c.kind).sort()).toEqual(['added', 'changed', 'removed']);
    await client.close();

    const neverNull = nullablePaths().filter((path) => !observedNulls.has(path));
    expect(neverNull).toEqual([]);
  }, 120_000);

  describe('ground truth by family: recall 100% and no phantom, through the real search', () => {
    const history = { historical: true };
    const em = () => t.app.deps.em.fork();

    /**
     * Whether a printed surface is this spelling under the corpus's character artifacts (ligatures,
     * no-break and soft hyphens, dashes, primes, line breaks), which the normalizer undoes anyway.
     */
    const spelledAs = (surface: string, variant: string) => {
      const plain = (s: string) =>
        s
          .normalize('NFKC')
          .replace(/\u00AD/g, '')
          .replace(/[\u2010-\u2015]/g, '-')
          .replace(/[\u2032\u2019]/g, "'")
          .replace(/\s+/g, ' ')
          .toLowerCase();
      const wanted = plain(variant);
      return [surface.replace(/-\n/g, '-'), surface.replace(/-\n/g, '')].some((s) => plain(s) === wanted);
    };

    /** The concept families, and `table`: every size and price the corpus prints, in tables or not. */
    type SearchedFamily = ConceptFamily | 'table';

    interface Tally {
      queries: number;
      expected: number;
      found: number;
      missed: string[];
      phantoms: string[];
    }

    it('finds every recorded page of every concept by each of its queries, and nothing else', async () => {
      const rows = await em()
        .getConnection()
        .execute<{ id: number; slug: string }[]>('select id, slug from project');
      const idOf = new Map(rows.map((r) => [r.slug, r.id]));
      const readable = manifest.documents.filter((d) => d.expect === 'text');
      const scanned = manifest.documents.filter((d) => d.expect === 'ocr');
      const tally = new Map<SearchedFamily, Tally>();
      const surfaces = new Map<string, Set<string>>();
      // Scans are read by OCR: their facts are counted apart (recall at least 95 %), and a hit on
      // one of their recorded pages is no phantom.
      const ocr = { expected: 0, found: 0, missed: [] as string[] };

      // Every concept by each of its queries, and every printed size and price (the table family)
      // by itself.
      const conceptNames = new Set(CONCEPTS.map((c) => c.query));
      const values = [
        ...new Set(
          readable.flatMap((d) => d.facts.map((f) => f.concept)).filter((c) => !conceptNames.has(c)),
        ),
      ];
      expect(values.length).toBeGreaterThan(50);
      const searched: { query: string; family: SearchedFamily; queries: string[] }[] = [
        ...CONCEPTS.map((c) => ({ query: c.query, family: c.family, queries: conceptQueries(c) })),
        ...values.map((v) => ({ query: v, family: 'table' as const, queries: [v] })),
      ];
      for (const concept of searched) {
        // The pages that mention it, per project: `document name#page`.
        const expected = new Map<number, Set<string>>();
        const expectedOcr = new Map<number, Set<string>>();
        for (const d of readable) {
          for (const f of d.facts.filter((x) => x.concept === concept.query)) {
            const id = idOf.get(d.projectKey)!;
            expected.set(id, (expected.get(id) ?? new Set()).add(`${d.name}#${f.page}`));
            surfaces.set(concept.query, (surfaces.get(concept.query) ?? new Set()).add(f.surface));
          }
        }
        for (const d of scanned) {
          for (const f of d.facts.filter((x) => x.concept === concept.query)) {
            const id = idOf.get(d.projectKey)!;
            expectedOcr.set(id, (expectedOcr.get(id) ?? new Set()).add(`${d.name}#${f.page}`));
          }
        }
        const t0 = tally.get(concept.family) ?? {
          queries: 0,
          expected: 0,
          found: 0,
          missed: [],
          phantoms: [],
        };
        tally.set(concept.family, t0);
        for (const query of concept.queries) {
          t0.queries++;
          const projects = await findProjectsMentioning(em(), history, {
            query,
            includeHistorical: true,
            limit: PROJECTS_MENTIONING_LIMIT.max,
          });
          const listed = new Set(projects.data.map((p) => p.projectId));
          for (const id of listed)
            if (!expected.has(id) && !expectedOcr.has(id))
              t0.phantoms.push(`${query}: project ${id} has no recorded mention`);
          for (const [projectId, pages] of expectedOcr) {
            if (expected.has(projectId)) continue;
            const hits = await searchDocumentText(em(), history, {
              query,
              projectId,
              includeHistorical: true,
              limit: SEARCH_LIMIT.max,
            });
            const shown = new Set(hits.data.map((h) => `${h.documentName}#${h.pageNumber}`));
            for (const page of pages) {
              ocr.expected++;
              if (shown.has(page) && listed.has(projectId)) ocr.found++;
              else ocr.missed.push(`${query}: ${page}`);
            }
            for (const page of shown) if (!pages.has(page)) t0.phantoms.push(`${query}: ${page}`);
          }
          for (const [projectId, pages] of expected) {
            t0.expected += pages.size;
            if (!listed.has(projectId)) t0.missed.push(`${query}: project ${projectId} not listed`);
            const hits = await searchDocumentText(em(), history, {
              query,
              projectId,
              includeHistorical: true,
              limit: SEARCH_LIMIT.max,
            });
            expect(hits.meta.totalChunksMatched).toBeLessThanOrEqual(SEARCH_LIMIT.max);
            const shown = new Set(hits.data.map((h) => `${h.documentName}#${h.pageNumber}`));
            const scannedPages = expectedOcr.get(projectId) ?? new Set<string>();
            for (const page of pages) {
              if (shown.has(page)) t0.found++;
              else t0.missed.push(`${query}: ${page}`);
            }
            for (const page of scannedPages) {
              ocr.expected++;
              if (shown.has(page)) ocr.found++;
              else ocr.missed.push(`${query}: ${page}`);
            }
            for (const page of shown)
              if (!pages.has(page) && !scannedPages.has(page)) t0.phantoms.push(`${query}: ${page}`);
          }
        }
      }

      console.log(
        `OCR through the pipeline: ${ocr.found}/${ocr.expected} scanned pages found by their concept queries (${((ocr.found / ocr.expected) * 100).toFixed(1)} %)${ocr.missed.length ? `; missed ${ocr.missed.join('; ')}` : ''}`,
      );
      expect(ocr.expected).toBeGreaterThan(0);
      expect(ocr.found / ocr.expected).toBeGreaterThanOrEqual(0.95);

      const families = [...tally.keys()].sort();
      expect(families).toEqual([
        'abbreviation',
        'catalogue',
        'compound',
        'near-miss',
        'number',
        'split-word',
        'table',
      ]);
      for (const family of families) {
        const f = tally.get(family)!;
        expect({ family, missed: f.missed, phantoms: f.phantoms }).toEqual({
          family,
          missed: [],
          phantoms: [],
        });
        expect(f.found).toBe(f.expected);
        expect(f.expected).toBeGreaterThan(0);
      }
      // The rule families are only proven if the corpus prints their spellings: more than one per
      // concept (split and joined, separators and none, periods and none).
      // The rule families are only proven if the corpus prints each of their spellings.
      const unprinted = CONCEPTS.filter((c) => c.family !== 'catalogue').flatMap((c) =>
        c.variants
          .filter((v) => ![...(surfaces.get(c.query) ?? [])].some((s) => spelledAs(s, v)))
          .map((v) => `${c.query}: ${v}`),
      );
      expect(unprinted).toEqual([]);
    }, 480_000);

    /**
     * Every concept query and every trap, answered by the index in place now: the projects, their
     * counts and best excerpts, and the first page of global hits with their total.
     */
    async function answers(): Promise<unknown[]> {
      const queries = [
        ...CONCEPTS.flatMap((c) => conceptQueries(c)),
        ...CONCEPTS.flatMap((c) => c.traps ?? []),
        ...NEAR_MISS_TEXTS.flatMap((n) => [n.trap, n.present]),
      ];
      const out: unknown[] = [];
      for (const query of queries) {
        const input = { query, includeHistorical: true };
        out.push({
          query,
          projects: await findProjectsMentioning(em(), history, {
            ...input,
            limit: PROJECTS_MENTIONING_LIMIT.max,
          }),
          hits: await searchDocumentText(em(), history, { ...input, limit: SEARCH_LIMIT.max }),
        });
      }
      return out;
    }

    /** The index the planner picks for a phrase search on the chunk table now. */
    async function planIndex(): Promise<string> {
      const [row] = await em()
        .getConnection()
        .execute<{ 'QUERY PLAN': unknown }[]>(
          `explain (format json) select count(*) from chunk where search_vector @@ $$'quartz' <-> 'countertops'$$::tsquery`,
        );
      return (
        /"Index Name":"(chunk_search_vector_\w+)"/.exec(JSON.stringify(row['QUERY PLAN']))?.[1] ?? 'none'
      );
    }

    /** Sets (or resets) a planner setting on every connection of the app's pool. */
    async function onEveryConnection(sql: string): Promise<void> {
      const pool = await t.app.deps.em.getConnection().getNativeClient();
      const held = await Promise.all(Array.from({ length: t.config.pool.poolMax }, () => pool.connect()));
      await Promise.all(held.map((c) => c.query(sql)));
      held.forEach((c) => c.release());
    }

    // PGlite has no extensions, so the GIN path is its only one (every other test here runs on it);
    // this test needs PostgreSQL with the rum extension (.ci/run installs it).
    itWith(ON_POSTGRES, 'PostgreSQL with the rum extension (DATABASE_URL)')(
      'gives the same answers on the GIN and the RUM index paths',
      async () => {
        // The corpus is small enough for a sequential scan: every connection is told that pages read
        // in sequence cost 1,000 times the usual, so that each path's own index answers (the plan is
        // checked). `enable_seqscan = off` would do it too, but skews every other table's plan
        // (the test took 55 s instead of 1).
        await onEveryConnection('set seq_page_cost = 1000');
        const seen: Record<string, unknown[]> = {};
        try {
          for (const kind of ['gin', 'rum'] as const) {
            expect(await ensureSearchIndex(t.app.deps.em, kind, false)).toBe(kind);
            expect(await planIndex()).toBe(`chunk_search_vector_${kind}`);
            seen[kind] = await answers();
          }
        } finally {
          await ensureSearchIndex(t.app.deps.em, t.config.searchIndex, false);
          await onEveryConnection('reset seq_page_cost');
        }
        expect(seen.rum).toEqual(seen.gin);
        expect(seen.gin.length).toBeGreaterThan(60);
      },
      240_000,
    );

    it('finds nothing for a trap: a number inside another, two table columns read as one, a careless split or join', async () => {
      // A table trap is one only where the corpus does not print that value somewhere else.
      const printed = new Set(
        manifest.documents.flatMap((d) => d.facts.map((f) => normalizeText(f.concept))),
      );
      const tableTraps = [...new Set(manifest.documents.flatMap((d) => d.traps ?? []))].filter(
        (trap) => !printed.has(normalizeText(trap)),
      );
      expect(tableTraps.length).toBeGreaterThan(20);
      const traps = [
        ...CONCEPTS.flatMap((c) => c.traps ?? []),
        ...NEAR_MISS_TEXTS.map((n) => n.trap),
        ...tableTraps,
      ];
      for (const query of traps) {
        const found = await searchDocumentText(em(), history, { query, includeHistorical: true, limit: 5 });
        expect({ query, total: found.meta.totalChunksMatched }).toEqual({ query, total: 0 });
      }
      // ... while what they are near is there to be found.
      for (const n of NEAR_MISS_TEXTS) {
        const found = await searchDocumentText(em(), history, { query: n.present, includeHistorical: true });
        expect({ query: n.present, found: found.meta.totalChunksMatched > 0 }).toEqual({
          query: n.present,
          found: true,
        });
      }
    }, 60_000);
  });
});
