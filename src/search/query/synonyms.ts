import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { matchesAt } from './match.js';
import { normalizeText, tokenForm } from '../text/normalize.js';

/**
 * Query expansion from the versioned synonym file. It only adds format, spelling and phrase
 * variants of what was asked (spec rule 5); it never turns an abstract query into a list of
 * concrete features (rule 4), so a miss still means "not mentioned".
 */

/** The data file sits beside this module in the source tree; compiled code runs from dist/. */
function sourceDirectory(dirname: string): string {
  const i = dirname.lastIndexOf('/dist/');
  return i >= 0 ? dirname.slice(0, i) + dirname.slice(i + '/dist'.length) : dirname;
}

/** The synonym file as written (read once, at load). */
export const SYNONYM_DATA = JSON.parse(
  readFileSync(join(sourceDirectory(import.meta.dirname), 'synonyms.v2.json'), 'utf8'),
) as { version: string; about: string; groups: SynonymGroupData[] };

export const SYNONYMS_VERSION: string = SYNONYM_DATA.version;

/** Upper bound on searched variants, so one long query cannot fan out into a huge tsquery. */
export const MAX_EXPANDED_TERMS = 32;

/** Guards the variant enumeration when many substitutions collapse into the same text. */
const MAX_COMBINATIONS = 4096;

export interface SynonymGroup {
  /** Interchangeable forms, normalized; any one found in a query is replaced by each other one. */
  readonly terms: readonly string[];
  /** One-way additions, normalized: searched when a query holds one of `terms`, never the reverse. */
  readonly alsoSearch: readonly string[];
}

interface SynonymGroupData {
  terms: string[];
  alsoSearch?: string[];
}

function distinctNormalized(values: readonly string[]): string[] {
  return [...new Set(values.map(normalizeText))].filter((term) => tokenForm(term).length > 0);
}

function loadGroups(groups: readonly SynonymGroupData[]): SynonymGroup[] {
  const owner = new Map<string, number>();
  return groups.map((group, index) => {
    const terms = distinctNormalized(group.terms);
    const alsoSearch = distinctNormalized(group.alsoSearch ?? []).filter((term) => !terms.includes(term));
    for (const term of terms) {
      // A form in two groups would make expansion depend on group order.
      if (owner.has(term))
        throw new Error(`synonym term "${term}" is in groups ${owner.get(term)} and ${index}`);
      owner.set(term, index);
    }
    return { terms, alsoSearch };
  });
}

export const SYNONYM_GROUPS: readonly SynonymGroup[] = loadGroups(SYNONYM_DATA.groups);

/** Every group form, longest first, so the longest form wins where forms overlap in a query. */
const FORMS = SYNONYM_GROUPS.flatMap((group) => group.terms.map((term) => ({ term, group }))).sort(
  (a, b) => b.term.length - a.term.length || (a.term < b.term ? -1 : 1),
);

interface Slot {
  start: number;
  end: number;
  /** The text found in the query first, then its replacements in file order. */
  alternatives: string[];
}

/** Non-overlapping group forms in the query, scanning left to right, longest form first. */
function findSlots(query: string): Slot[] {
  const slots: Slot[] = [];
  let index = 0;
  while (index < query.length) {
    const found = FORMS.find(({ term }) => matchesAt(query, term, index));
    if (found === undefined) {
      index++;
      continue;
    }
    const others = found.group.terms.filter((term) => term !== found.term);
    slots.push({
      start: index,
      end: index + found.term.length,
      alternatives: [found.term, ...others, ...found.group.alsoSearch],
    });
    index += found.term.length;
  }
  return slots;
}

function applyChoice(query: string, slots: Slot[], choice: number[]): string {
  let text = '';
  let copied = 0;
  slots.forEach((slot, i) => {
    text += query.slice(copied, slot.start) + slot.alternatives[choice[i]];
    copied = slot.end;
  });
  return text + query.slice(copied);
}

/** k-element subsets of [0, n) in lexicographic order. */
function* subsets(n: number, k: number, from = 0): Generator<number[]> {
  if (k === 0) {
    yield [];
    return;
  }
  for (let first = from; first <= n - k; first++) {
    for (const rest of subsets(n, k - 1, first + 1)) yield [first, ...rest];
  }
}

/** Every way to pick a non-original alternative for each chosen slot, in lexicographic order. */
function* replacements(slots: Slot[], chosen: number[], depth = 0): Generator<number[]> {
  if (depth === chosen.length) {
    yield [];
    return;
  }
  const count = slots[chosen[depth]].alternatives.length;
  for (let alternative = 1; alternative < count; alternative++) {
    for (const rest of replacements(slots, chosen, depth + 1)) yield [alternative, ...rest];
  }
}

/**
 * Variants with fewer substitutions come first (the query itself, then each single swap, then
 * pairs...), so the cap keeps the variants closest to what was asked. Fully deterministic.
 */
function* variants(query: string, slots: Slot[]): Generator<string> {
  let combinations = 0;
  for (let k = 0; k <= slots.length; k++) {
    for (const chosen of subsets(slots.length, k)) {
      for (const picked of replacements(slots, chosen)) {
        if (++combinations > MAX_COMBINATIONS) return;
        const choice = slots.map(() => 0);
        chosen.forEach((slot, i) => (choice[slot] = picked[i]!));
        yield applyChoice(query, slots, choice);
      }
    }
  }
}

export interface ExpandedQuery {
  /** The query as the normalizer sees it, without punctuation around it. */
  normalizedQuery: string;
  /** Distinct normalized phrases to search, the normalized query first; empty if nothing is searchable. */
  terms: string[];
}

/**
 * Quotes and punctuation around a whole query (`"walk-in closet"`, `countertops?`) are how people
 * and models delimit a phrase, not part of it. Inch marks are already words by now (`30"` is
 * `30 inch`), so nothing meaningful is lost.
 */
const OUTER_PUNCTUATION = /^[^\p{L}\p{M}\p{N}]+|[^\p{L}\p{M}\p{N}]+$/gu;

export function expandQuery(query: string): ExpandedQuery {
  const normalizedQuery = normalizeText(query).replace(OUTER_PUNCTUATION, '');
  const terms: string[] = [];
  if (tokenForm(normalizedQuery).length === 0) return { normalizedQuery, terms };
  const seen = new Set<string>();
  for (const variant of variants(normalizedQuery, findSlots(normalizedQuery))) {
    const term = normalizeText(variant);
    if (seen.has(term) || tokenForm(term).length === 0) continue;
    seen.add(term);
    terms.push(term);
    if (terms.length === MAX_EXPANDED_TERMS) break;
  }
  return { normalizedQuery, terms };
}
