import { badInput } from '../../errors/catalogue.js';
import { MAX_QUERY_LENGTH } from '../../limits.js';

/** Quote pairs a model often wraps a phrase in; `30"` alone is an inch mark and is kept. */
const WRAPPING_QUOTES: Record<string, string> = {
  '"': '"',
  "'": "'",
  '\u201c': '\u201d',
  '\u2018': '\u2019',
  '\u00ab': '\u00bb',
};

function unwrapQuotes(q: string): string {
  const close = WRAPPING_QUOTES[q[0]];
  if (q.length >= 3 && close !== undefined && q.endsWith(close)) return q.slice(1, -1).trim();
  return q;
}

export function validateQuery(query: string): string {
  const q = unwrapQuotes(query.trim());
  if (!q) throw badInput('query', 'must not be empty');
  if (q.length > MAX_QUERY_LENGTH) throw badInput('query', `must be at most ${MAX_QUERY_LENGTH} characters`);
  return q;
}
