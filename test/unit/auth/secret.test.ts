import { createHash } from 'node:crypto';
import fc from 'fast-check';
import {
  equalDigests,
  generateSecret,
  hashSecret,
  parseSecret,
  safeEqual,
} from '../../../src/auth/secret.js';

/**
 * Stored hashes were written by earlier code (createHash): the one-shot crypto.hash must give the
 * same digest for every secret, or every key and token issued before would stop working.
 */
describe('secrets', () => {
  const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

  it('hashes a secret as SHA-256 of its UTF-8 bytes, in hex', () => {
    expect(hashSecret('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), (s) => hashSecret(s) === sha256(s)));
  });

  it('compares strings of any length and text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        expect(safeEqual(a, a)).toBe(true);
        expect(safeEqual(a, b)).toBe(a === b);
      }),
    );
    expect(safeEqual('é', 'e\u0301')).toBe(false);
    expect(safeEqual('', '')).toBe(true);
  });

  it('compares digests and checksums byte for byte, equal only when the text is', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        expect(equalDigests(a, a)).toBe(true);
        expect(equalDigests(a, b)).toBe(a === b);
        expect(equalDigests(hashSecret(a), hashSecret(b))).toBe(a === b);
      }),
    );
    // Same length in UTF-16, different in UTF-8: compared as bytes, never as a prefix.
    expect(equalDigests('é', 'ab')).toBe(false);
    expect(equalDigests('abc', 'ab')).toBe(false);
    expect(equalDigests('', '')).toBe(true);
  });

  it('accepts a generated secret and refuses one with a character changed', () => {
    for (const kind of ['key', 'mcp', 'oat', 'ort'] as const) {
      const secret = generateSecret(kind);
      expect(parseSecret(secret)).toBe(kind);
      const last = secret.at(-1)!;
      expect(parseSecret(secret.slice(0, -1) + (last === 'a' ? 'b' : 'a'))).toBeNull();
      expect(parseSecret(`${secret}x`)).toBeNull();
    }
  });
});
