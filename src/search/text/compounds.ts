/**
 * Joined and split spellings of a compound, by rule rather than by synonym entry: a query word
 * `underground` is also searched as `under ground` (which the normalizer also reads for
 * `under-ground`), and a query pair `soft close` also as `softclose`. Hyphen and space spellings
 * need nothing here: the normalizer makes a hyphen between words a space.
 *
 * Splitting invents words, so it is guarded (`therapist` must never find `the rapist`,
 * `den` never `d en`):
 * - both halves have at least 3 letters, so no stray letter or pair (`d en`, `un der`);
 * - neither half is a closed-class word (articles, pronouns, prepositions, conjunctions,
 *   auxiliaries): those attach to anything, and `the rapist`, `in side`, `for ever` are phrases of
 *   their own, not spellings of one word;
 * - both halves are words the indexed corpus uses (`search_vocabulary`), so a split is only tried
 *   where the documents could spell it that way.
 * Joining is guarded the same way, from the other side: `soft close` is also searched as
 * `softclose` only if some chunk says `softclose`, and only when both words could be halves of a
 * split (so `the rapist` never finds `therapist`, `no table` never `notable`).
 */

/** Function words that never count as a half of a compound (lower-case, 3 letters or more). */
const CLOSED_CLASS = new Set([
  'the',
  'and',
  'but',
  'nor',
  'yet',
  'for',
  'not',
  'off',
  'out',
  'via',
  'per',
  'too',
  'our',
  'ours',
  'you',
  'your',
  'yours',
  'his',
  'her',
  'hers',
  'its',
  'him',
  'she',
  'they',
  'them',
  'their',
  'theirs',
  'who',
  'whom',
  'whose',
  'what',
  'which',
  'that',
  'this',
  'these',
  'those',
  'any',
  'all',
  'some',
  'each',
  'both',
  'few',
  'many',
  'much',
  'more',
  'most',
  'such',
  'was',
  'were',
  'are',
  'has',
  'had',
  'have',
  'been',
  'being',
  'does',
  'did',
  'can',
  'could',
  'may',
  'might',
  'must',
  'shall',
  'should',
  'will',
  'would',
  'into',
  'onto',
  'upon',
  'from',
  'with',
  'within',
  'without',
  'about',
  'above',
  'below',
  'over',
  'under',
  'after',
  'before',
  'than',
  'then',
  'when',
  'where',
  'while',
  'here',
  'there',
  'also',
  'just',
  'only',
  'very',
  'ever',
  'every',
  'other',
  'another',
  'own',
  'same',
  'how',
  'why',
  'whether',
  'though',
  'through',
  'across',
  'along',
  'among',
  'around',
  'between',
  'beyond',
  'during',
  'near',
  'since',
  'till',
  'until',
  'toward',
  'towards',
  'unless',
  'whereas',
  'himself',
  'herself',
  'itself',
  'myself',
  'yourself',
  'themselves',
  'ourselves',
  'none',
  'one',
  'ones',
]);

/**
 * `under` is a preposition but also the head of many real compounds (underground, underfloor,
 * undermount); the closed-class rule would make them unsplittable. These heads are allowed as the
 * left half only, where compounds put them.
 */
const COMPOUND_HEADS = new Set([
  'under',
  'over',
  'out',
  'off',
  'after',
  'through',
  'all',
  'every',
  'any',
  'some',
]);

/**
 * Particles that end many real compounds (walkout, takeover, walkthrough): allowed as the right
 * half only, where compounds put them.
 */
const COMPOUND_TAILS = new Set(['out', 'off', 'over', 'through']);

const MIN_HALF = 3;
const LETTERS = /^\p{L}+$/u;

function usableHalf(half: string, side: 'left' | 'right'): boolean {
  if (half.length < MIN_HALF) return false;
  if (side === 'left' && COMPOUND_HEADS.has(half)) return true;
  if (side === 'right' && COMPOUND_TAILS.has(half)) return true;
  return !CLOSED_CLASS.has(half);
}

/** The words a rule could need from the vocabulary for these terms (normalized, space-separated). */
export function vocabularyCandidates(terms: readonly string[]): string[] {
  const words = new Set<string>();
  for (const term of terms) {
    const parts = term.split(' ');
    parts.forEach((word, i) => {
      if (!LETTERS.test(word)) return;
      for (const [left, right] of splits(word)) {
        words.add(left);
        words.add(right);
      }
      const next = parts[i + 1];
      if (joinable(word, next)) words.add(word + next);
    });
  }
  return [...words];
}

/** Whether a query pair may be searched joined: both words are halves a split could give. */
function joinable(word: string, next: string | undefined): next is string {
  return next !== undefined && LETTERS.test(next) && usableHalf(word, 'left') && usableHalf(next, 'right');
}

function splits(word: string): [string, string][] {
  const out: [string, string][] = [];
  for (let i = MIN_HALF; i <= word.length - MIN_HALF; i++) {
    const left = word.slice(0, i);
    const right = word.slice(i);
    if (usableHalf(left, 'left') && usableHalf(right, 'right')) out.push([left, right]);
  }
  return out;
}

/**
 * The split and joined spellings of `terms` whose words are all in `vocabulary`, in a stable
 * order, excluding the terms themselves. One change per variant (one word split or one pair
 * joined), so the list stays short.
 */
export function compoundVariants(terms: readonly string[], vocabulary: ReadonlySet<string>): string[] {
  const seen = new Set(terms);
  const out: string[] = [];
  const add = (variant: string) => {
    if (!seen.has(variant)) {
      seen.add(variant);
      out.push(variant);
    }
  };
  for (const term of terms) {
    const parts = term.split(' ');
    parts.forEach((word, i) => {
      if (!LETTERS.test(word)) return;
      for (const [left, right] of splits(word)) {
        if (vocabulary.has(left) && vocabulary.has(right))
          add([...parts.slice(0, i), `${left} ${right}`, ...parts.slice(i + 1)].join(' '));
      }
      const next = parts[i + 1];
      if (joinable(word, next) && vocabulary.has(word + next))
        add([...parts.slice(0, i), word + next, ...parts.slice(i + 2)].join(' '));
    });
  }
  return out;
}

/** The letter-only words of normalized texts: what `search_vocabulary` records. */
export function vocabularyOf(texts: readonly string[]): string[] {
  const words = new Set<string>();
  for (const text of texts) for (const word of text.split(/[^\p{L}]+/u)) if (word) words.add(word);
  return [...words];
}
