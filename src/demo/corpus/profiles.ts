import type { Rng } from '../prng.js';
import type { TextProfile } from './manifest.js';

/**
 * Character-level artifacts seen in real developer PDFs, applied to the text before layout. Base
 * text is plain ASCII typography (`30"`, `9'`, `it's`, ` - `); each profile rewrites it the way a
 * particular authoring or conversion mishap would. Fact marks (private-use characters) pass
 * through untouched, so every mention's surface is recorded exactly as it ends up in the PDF.
 */

const SOFT_HYPHEN = '\u00AD';
const NBSP = '\u00A0';

/** Typographer's quotes: inch and foot marks become primes, apostrophes and quotes curl. */
function smartQuotes(text: string, feet = true): string {
  let out = text.replace(/(\d)"/g, '$1\u2033');
  if (feet) out = out.replace(/(\d)'/g, '$1\u2032');
  return out
    .replace(/(\p{L})'(\p{L})/gu, '$1\u2019$2')
    .replace(/"(?=[\p{L}\p{N}$])/gu, '\u201C')
    .replace(/"/g, '\u201D');
}

/** Windows-1252 for bytes 0x80–0x9F; the five undefined bytes show as U+FFFD, as viewers draw them. */
const CP1252: readonly number[] = [
  0x20ac, 0xfffd, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152,
  0xfffd, 0x017d, 0xfffd, 0xfffd, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122,
  0x0161, 0x203a, 0x0153, 0xfffd, 0x017e, 0x0178,
];

/** UTF-8 bytes read back as Windows-1252: `″` becomes `â€³`, `é` becomes `Ã©`, a no-break space `Â `. */
function doubleDecode(char: string): string {
  return Array.from(Buffer.from(char, 'utf8'), (byte) =>
    String.fromCodePoint(byte >= 0x80 && byte <= 0x9f ? CP1252[byte - 0x80] : byte),
  ).join('');
}

const IS_MARK = /[\uE000-\uF8FF]/u;

function mojibake(text: string, rng: Rng): string {
  // No-break spaces after amounts are common in the source documents these mishaps start from.
  const typeset = smartQuotes(text).replace(/(?<=\d) (?=\p{L})/gu, () => (rng.chance(0.5) ? NBSP : ' '));
  return Array.from(typeset, (char) =>
    char.codePointAt(0)! < 0x80 || IS_MARK.test(char) ? char : doubleDecode(char),
  ).join('');
}

/**
 * A conversion that lost every non-ASCII character. Foot marks stay ASCII on purpose: a lost
 * prime after a number reads as an inch mark, and the concept would then be wrong, not just ugly.
 */
function replacementChars(text: string): string {
  return Array.from(smartQuotes(text, false), (char) =>
    char.codePointAt(0)! < 0x80 || IS_MARK.test(char) ? char : '\uFFFD',
  ).join('');
}

function ligatures(text: string): string {
  return text
    .replace(/ffi/g, '\uFB03')
    .replace(/ffl/g, '\uFB04')
    .replace(/ff/g, '\uFB00')
    .replace(/fi/g, '\uFB01')
    .replace(/fl/g, '\uFB02');
}

function noBreakSpaces(text: string, rng: Rng): string {
  return text.replace(/ /g, (_space, offset: number) => {
    const after = /[\d.$]/.test(text[offset - 1] ?? '');
    const noBreak = rng.chance(after ? 0.7 : 0.12);
    // Between two digit groups a no-break space is a thousands separator: it would change the number.
    const betweenDigits = /\d/.test(text[offset - 1] ?? '') && /\d/.test(text[offset + 1] ?? '');
    return noBreak && !betweenDigits ? NBSP : ' ';
  });
}

/** Invisible hyphenation points every few letters of long words, as word processors store them. */
function softHyphens(text: string): string {
  return text.replace(/\p{L}{8,}/gu, (word) => {
    const parts: string[] = [];
    for (let i = 0; i < word.length; i += 4) parts.push(word.slice(i, i + 4));
    // A single letter never stands alone after a hyphenation point.
    if (parts[parts.length - 1].length < 2) {
      const last = parts.pop()!;
      parts[parts.length - 1] += last;
    }
    return parts.join(SOFT_HYPHEN);
  });
}

function dashes(text: string, rng: Rng): string {
  return text
    .replace(/ - /g, () => (rng.chance(0.5) ? ' \u2014 ' : ' \u2013 '))
    .replace(/(?<=\d)-(?=\d)/g, '\u2013')
    .replace(/(?<=\p{Ll})-(?=\p{Ll})/gu, () => (rng.chance(0.3) ? '\u2011' : '-'));
}

export function applyTextProfile(text: string, profile: TextProfile, rng: Rng): string {
  switch (profile) {
    case 'clean':
      return text;
    case 'smart-quotes':
      return smartQuotes(text);
    case 'mojibake':
      return mojibake(text, rng);
    case 'replacement-char':
      return replacementChars(text);
    case 'ligatures':
      return ligatures(text);
    case 'nbsp':
      return noBreakSpaces(text, rng);
    case 'soft-hyphens':
      return softHyphens(text);
    case 'dashes':
      return dashes(text, rng);
  }
}
