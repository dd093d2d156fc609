import { createRng } from '../../../src/demo/prng.js';
import { CONCEPTS, mention, stripMarks } from '../../../src/demo/corpus/concepts.js';
import { TEXT_PROFILES } from '../../../src/demo/corpus/manifest.js';
import { applyTextProfile } from '../../../src/demo/corpus/profiles.js';
import { wrap } from '../../../src/demo/corpus/wrap.js';
import { normalizeText } from '../../../src/search/text/normalize.js';

describe('artifact profiles', () => {
  const cases: [(typeof TEXT_PROFILES)[number], string, string][] = [
    ['clean', `A 30" gas range, it's "new"`, `A 30" gas range, it's "new"`],
    ['smart-quotes', `A 30" gas range and 9' ceilings`, 'A 30\u2033 gas range and 9\u2032 ceilings'],
    ['smart-quotes', `it's "Miele"`, 'it\u2019s \u201CMiele\u201D'],
    ['mojibake', `A 30" gas range`, 'A 30\u00E2\u20AC\u00B3 gas range'],
    ['mojibake', `it's a Café`, 'it\u00E2\u20AC\u2122s a Caf\u00C3\u00A9'],
    ['mojibake', `"Miele"`, '\u00E2\u20AC\u0153Miele\u00E2\u20AC\uFFFD'],
    [
      'replacement-char',
      `A 30" gas range, 9' ceilings, Café`,
      "A 30\uFFFD gas range, 9' ceilings, Caf\uFFFD",
    ],
    ['ligatures', 'office fine flooring', 'o\uFB03ce \uFB01ne \uFB02ooring'],
    ['soft-hyphens', 'engineered stainless oak', 'engi\u00ADneer\u00ADed stai\u00ADnless oak'],
  ];

  it.each(cases)('%s: %j becomes %j', (profile, input, output) => {
    expect(applyTextProfile(input, profile, createRng(1))).toBe(output);
  });

  it('turns ranges and spaced hyphens into dashes', () => {
    const out = applyTextProfile('floors 2-9 - ask us', 'dashes', createRng(1));
    expect(out).toMatch(/^floors 2\u20139 [\u2013\u2014] ask us$/);
  });

  it('puts no-break spaces mostly after numbers', () => {
    const out = applyTextProfile('From $5,000 on signing and 9 ft. ceilings', 'nbsp', createRng(2));
    expect(out).toContain('\u00A0');
    expect(out.replace(/\u00A0/g, ' ')).toBe('From $5,000 on signing and 9 ft. ceilings');
  });

  it('leaves fact marks alone and transforms the marked text', () => {
    const marked = `Professional-style ${mention(1, '30" gas range')}`;
    const out = applyTextProfile(marked, 'mojibake', createRng(1));
    expect(out).toContain('\uE000\uE101');
    expect(stripMarks(out)).toBe('Professional-style 30\u00E2\u20AC\u00B3 gas range');
  });

  // The corpus must only contain artifacts the normalizer undoes, or its ground truth would lie.
  const sentences = CONCEPTS.flatMap((c) => c.variants.map((v) => c.contexts[0].replace('{}', v)));
  it.each(TEXT_PROFILES)('%s normalizes back to the clean text', (profile) => {
    for (const sentence of [...sentences, 'Cafés and a 24-hour concierge - steps away']) {
      // A lost character cannot come back; only inch marks are meant to survive as U+FFFD.
      if (profile === 'replacement-char' && [...sentence].some((c) => c.charCodeAt(0) > 0x7f)) continue;
      const noisy = applyTextProfile(sentence, profile, createRng(3));
      expect({ sentence, normalized: normalizeText(noisy) }).toEqual({
        sentence,
        normalized: normalizeText(sentence),
      });
    }
  });
});

describe('line wrapping', () => {
  const measure = (text: string) => text.length * 6;

  it('fills lines up to the width at spaces only', () => {
    const lines = wrap('quartz countertops with\u00A0matching backsplash', 120, measure, false);
    expect(lines).toEqual(['quartz countertops', 'with\u00A0matching', 'backsplash']);
  });

  it('hyphenates long words at a line end between lower-case letters', () => {
    const text = 'Wide plank engineered hardwood flooring throughout the living areas';
    const lines = wrap(text, 100, measure, true);
    expect(lines.some((l) => /[a-z]-$/.test(l))).toBe(true);
    for (const line of lines) expect(measure(line)).toBeLessThanOrEqual(100);
    expect(lines.join('\n').replace(/-\n/g, '').replace(/\n/g, ' ')).toBe(text);
  });

  it('never breaks after a compound head the normalizer would keep hyphenated', () => {
    const lines = wrap('The walkways', 54, measure, true);
    expect(lines.join('|')).not.toContain('walk-|');
  });
});
