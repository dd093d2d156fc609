import { LRUCache } from 'lru-cache';
import { lexemesOf, searchQueryLiteral } from '../text/lexemes.js';
import { plainSpellings } from './spellings.js';
import { surfaceForms } from './surface-forms.js';
import { expandQuery } from './synonyms.js';
import { vocabularyCandidates } from '../text/compounds.js';

/**
 * What a query is searched as, worked out once per distinct text and kept. Everything here is a
 * pure function of the words and of tables fixed at start-up (synonyms, abbreviations, the
 * compound and lexeme rules), and a client asks the same words project after project (the MCP
 * instructions' own sequence: find-projects-mentioning, then search-document-text in each
 * project), so a repeated query skips that CPU (the MCP section of `npm run bench`).
 * What the index's vocabulary says of the compound candidates is not kept here: it changes with
 * the `search` generation (src/search/query/search-cache.ts). Kept values are frozen: they are shared by
 * every search that asks the same words.
 */

/**
 * Each cache (an `lru-cache`, weighed by characters) keeps at most 1,000 entries and 1,000,000
 * characters of keys and values together, dropping the least recently used first. A common query
 * weighs a few hundred characters; the heaviest a 200-character query can make (many
 * synonym-bearing words: 128 spellings) about 100,000, so unique hostile queries hold at most a
 * few MB here, whatever they are.
 */
const MAX_ENTRIES = 1000;
const MAX_CHARACTERS = 1_000_000;

const characters = (texts: readonly string[]) => texts.reduce((sum, text) => sum + text.length, 0);

class Kept<V extends object> {
  private readonly entries: LRUCache<string, V>;

  constructor(weigh: (value: V) => number) {
    this.entries = new LRUCache<string, V>({
      max: MAX_ENTRIES,
      maxSize: MAX_CHARACTERS,
      // lru-cache wants a positive size: an empty query with no forms still takes a slot.
      sizeCalculation: (value, key) => Math.max(1, key.length + weigh(value)),
    });
  }

  get(key: string, make: () => V): V {
    let value = this.entries.get(key);
    if (value === undefined) {
      value = make();
      this.entries.set(key, value);
    }
    return value;
  }
}

export interface QueryWords {
  /**
   * `plainSpellings(expandQuery(query).terms)`: the normalized query first, its synonym variants,
   * their abbreviation spellings; what every search of the query searches, besides compounds.
   */
  readonly plain: readonly string[];
  /** `vocabularyCandidates(plain)`: the words to look up in the index's vocabulary for compound spellings. */
  readonly candidates: readonly string[];
}

export interface TermForms {
  /** `searchQueryLiteral(terms)`: null when no term is searchable. */
  readonly tsquery: string | null;
  /** The tsquery's lexemes (`lexemesOf`), empty when there is none. */
  readonly lexemes: readonly string[];
  /** `surfaceForms(terms)`: what the answer reports as `expandedTerms`. */
  readonly surface: readonly string[];
}

const words = new Kept<QueryWords>((w) => characters(w.plain) + characters(w.candidates));
const forms = new Kept<TermForms>(
  (f) => (f.tsquery?.length ?? 0) + characters(f.lexemes) + characters(f.surface),
);

/** A validated query's searched words. */
export function queryWords(query: string): QueryWords {
  return words.get(query, () => {
    const plain = plainSpellings(expandQuery(query).terms);
    return Object.freeze({
      plain: Object.freeze(plain),
      candidates: Object.freeze(vocabularyCandidates(plain)),
    });
  });
}

/** The pre-filter's query and the reported spellings of `terms`, every spelling a search searches. */
export function termForms(terms: readonly string[]): TermForms {
  // JSON keeps the list's boundaries whatever its terms hold.
  return forms.get(JSON.stringify(terms), () => {
    const tsquery = searchQueryLiteral(terms);
    return Object.freeze({
      tsquery,
      lexemes: Object.freeze(tsquery === null ? [] : lexemesOf(tsquery)),
      surface: Object.freeze(surfaceForms(terms)),
    });
  });
}
