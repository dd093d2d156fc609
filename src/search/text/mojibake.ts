import { replaceMapped, type MappedText } from './mapped-text.js';

/**
 * Repairs UTF-8 text that was decoded as Windows-1252 or Latin-1 somewhere between the author and
 * us (`â€³` for ″, `Ã©` for é, `Â ` for a no-break space), including text that went through that
 * twice. PDF text layers and copy-pasted price lists carry these forms often enough that searching
 * for `30″` must see through them.
 */

/** Windows-1252 characters for bytes 0x80–0x9F; the five undefined bytes decode as C1 controls. */
const CP1252_HIGH: Readonly<Record<number, number>> = {
  0x20ac: 0x80,
  0x201a: 0x82,
  0x0192: 0x83,
  0x201e: 0x84,
  0x2026: 0x85,
  0x2020: 0x86,
  0x2021: 0x87,
  0x02c6: 0x88,
  0x2030: 0x89,
  0x0160: 0x8a,
  0x2039: 0x8b,
  0x0152: 0x8c,
  0x017d: 0x8e,
  0x2018: 0x91,
  0x2019: 0x92,
  0x201c: 0x93,
  0x201d: 0x94,
  0x2022: 0x95,
  0x2013: 0x96,
  0x2014: 0x97,
  0x02dc: 0x98,
  0x2122: 0x99,
  0x0161: 0x9a,
  0x203a: 0x9b,
  0x0153: 0x9c,
  0x017e: 0x9e,
  0x0178: 0x9f,
};

const CONTINUATION = `[\\u0080-\\u00BF${Object.keys(CP1252_HIGH)
  .map((cp) => `\\u{${Number(cp).toString(16)}}`)
  .join('')}]`;

/**
 * Longest byte sequence first. `â€` with its third byte lost or replaced by U+FFFD is almost always
 * a right double quote (E2 80 9D, whose last byte Windows-1252 leaves undefined). A stray `Â`
 * before a space is the lead byte of a no-break space whose second byte became a plain space.
 */
const MOJIBAKE = new RegExp(
  [
    `[\\u00F0-\\u00F4]${CONTINUATION}{3}`,
    `[\\u00E0-\\u00EF]${CONTINUATION}{2}`,
    `[\\u00C2-\\u00DF]${CONTINUATION}`,
    `\\u00E2\\u20AC\\uFFFD?`,
    `(?<!\\p{Lu})\\u00C2(?= )`,
  ].join('|'),
  'gu',
);

const RIGHT_DOUBLE_QUOTE = '\u201D';
const utf8 = new TextDecoder('utf-8', { fatal: true });

function byteOf(char: string): number {
  const cp = char.codePointAt(0)!;
  return cp >= 0x80 && cp <= 0xff ? cp : CP1252_HIGH[cp];
}

/**
 * Only accept decodings into blocks that real-estate documents use, so legitimate accented text
 * that happens to look like a byte sequence (`×½`) is left alone.
 */
function isPlausible(cp: number): boolean {
  return (
    (cp >= 0x80 && cp <= 0x24f) ||
    (cp >= 0x370 && cp <= 0x3ff) ||
    (cp >= 0x2000 && cp <= 0x206f) ||
    (cp >= 0x20a0 && cp <= 0x20cf) ||
    (cp >= 0x2100 && cp <= 0x22ff) ||
    (cp >= 0x25a0 && cp <= 0x27bf) ||
    (cp >= 0xfb00 && cp <= 0xfb06) ||
    (cp >= 0x1f300 && cp <= 0x1faff)
  );
}

function decode(sequence: string): string | null {
  if (sequence.startsWith('\u00E2\u20AC') && (sequence.length === 2 || sequence[2] === '\uFFFD')) {
    return RIGHT_DOUBLE_QUOTE;
  }
  if (sequence === '\u00C2') return '';
  const bytes = Uint8Array.from(Array.from(sequence, byteOf));
  let decoded: string;
  try {
    decoded = utf8.decode(bytes);
  } catch {
    return null;
  }
  const cp = decoded.codePointAt(0)!;
  return decoded.length === String.fromCodePoint(cp).length && isPlausible(cp) ? decoded : null;
}

/** Text encoded wrongly twice needs two passes; a third covers the rare triple case. */
const MAX_PASSES = 3;

export function repairMojibake(source: MappedText): MappedText {
  let current = source;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const next = replaceMapped(current, MOJIBAKE, (match) => decode(match[0]));
    if (next === current) break;
    current = next;
  }
  return current;
}
