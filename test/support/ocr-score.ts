import { CONCEPTS, conceptQueries, type CorpusDocument } from '../../src/demo/corpus/index.js';
import { findFirstMatch } from '../../src/search/query/match.js';
import { queryWords } from '../../src/search/query/query-forms.js';
import { withCompounds } from '../../src/search/query/spellings.js';

export interface ScanScore {
  facts: number;
  found: number;
  missed: string[];
  /** Concept, absent-term and trap queries that match a scanned page where no fact is recorded. */
  phantoms: string[];
  /** The phantoms that are absent terms (concepts no document mentions). */
  absentHits: string[];
  perDocument: {
    file: string;
    type: string;
    pages: number;
    facts: number;
    found: number;
    phantoms: number;
  }[];
}

/**
 * How well OCR read the scans, by fact, through the search post-filter: a fact is found when every
 * one of its concept's queries matches its page's normalized text; a phantom is a query matching a
 * page that records no fact of it. `pagesOf(file)`: the document's pages, normalized.
 */
export function scoreScans(
  scans: CorpusDocument[],
  pagesOf: (file: string) => string[],
  absentConcepts: readonly string[],
  known: ReadonlySet<string>,
): ScanScore {
  const termsOf = (query: string) => withCompounds(queryWords(query).plain, known);
  const absent = new Set(absentConcepts);
  const queries = [
    ...CONCEPTS.flatMap((c) => conceptQueries(c).map((q) => ({ query: q, concept: c.query }))),
    ...absentConcepts.map((q) => ({ query: q, concept: q })),
    ...CONCEPTS.flatMap((c) => (c.traps ?? []).map((q) => ({ query: q, concept: `trap of ${c.query}` }))),
  ];
  const score: ScanScore = { facts: 0, found: 0, missed: [], phantoms: [], absentHits: [], perDocument: [] };
  for (const d of scans) {
    const pages = pagesOf(d.file);
    let found = 0;
    for (const fact of d.facts) {
      // A concept is searched by each of its queries; a printed value from a table by itself.
      const concept = CONCEPTS.find((c) => c.query === fact.concept);
      const every = (concept ? conceptQueries(concept) : [fact.concept]).every(
        (query) => findFirstMatch(pages[fact.page - 1] ?? '', termsOf(query)) !== null,
      );
      if (every) found++;
      else score.missed.push(`${d.file} p${fact.page}: ${JSON.stringify(fact.surface)}`);
    }
    let phantoms = 0;
    pages.forEach((page, i) => {
      const recorded = new Set(d.facts.filter((f) => f.page === i + 1).map((f) => f.concept));
      for (const { query, concept } of queries) {
        if (recorded.has(concept) || findFirstMatch(page, termsOf(query)) === null) continue;
        phantoms++;
        score.phantoms.push(`${d.file} p${i + 1}: ${query}`);
        if (absent.has(concept)) score.absentHits.push(`${d.file} p${i + 1}: ${query}`);
      }
    });
    score.facts += d.facts.length;
    score.found += found;
    score.perDocument.push({
      file: d.file,
      type: d.type,
      pages: d.pageCount,
      facts: d.facts.length,
      found,
      phantoms,
    });
  }
  return score;
}

/** The score as the corpus test and the bench print it. */
export function formatScanScore(score: ScanScore): string {
  const percent = score.facts ? ((score.found / score.facts) * 100).toFixed(1) : '-';
  return [
    `OCR of the scanned profile: recall ${score.found}/${score.facts} facts (${percent} %), ${score.phantoms.length} phantoms, ${score.absentHits.length} absent-term hits`,
    ...score.perDocument.map(
      (d) => `  ${d.file} (${d.type}, ${d.pages} p.): ${d.found}/${d.facts} facts, ${d.phantoms} phantoms`,
    ),
    ...(score.missed.length ? [`  missed: ${score.missed.join('; ')}`] : []),
  ].join('\n');
}
