import { lexemesOf, searchQueryLiteral } from './lexemes.js';
import { plainSpellings } from './spellings.js';
import { surfaceForms } from './surface-forms.js';
import { expandQuery } from './synonyms.js';
import { vocabularyCandidates } from './compounds.js';

/**
 * What a query is searched as, worked out once per distinct text and kept. Everything here is a
 * pure function of the words and of tables fixed at start-up (synonyms, abbreviations, the
 * compound and lexeme rules), and a client asks the same words project after project (the MCP
 * instructions' own sequence: find-projects-mentioning, then search-document-text in each
 * project), so a repeated query skips about 0.2 ms of CPU (README › Hot paths, eleventh session).
 * What the index's vocabulary says of the compound candidates is not kept here: it changes with
 * the `search` generation (src/search/search-cache.ts). Kept values are frozen: they are shared by
 * every search that asks the same words.
 */

/** Distinct queries (and distinct spelling sets) kept; past that the oldest is worked out again. */
const MAX_KEPT = 1000;

class Kept<V> {
  private readonly entries = new Map<string, V>();

  get(key: string, make: () => V): V {
    let value = this.entries.get(key);
    if (value === undefined) {
      value = make();
      this.entries.set(key, value);
      if (this.entries.size > MAX_KEPT) this.entries.delete(this.entries.keys().next().value!);
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
  /** The words to look up in the index's vocabulary for compound spellings (`spellingCandidates`). */
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

const words = new Kept<QueryWords>();
const forms = new Kept<TermForms>();

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
