import { normalize } from '../../../src/search/text/normalize.js';
import { rawOffsets, rawOffsetsKept } from '../../../src/search/text/raw-offsets.js';

const TEXTS = [
  'Quartz countertops in every kitchen.',
  '30" GAS RANGE, 36″ fridge and a 30-inch wall oven',
  'Suite 1,850 sq. ft. with 9\u2019 ceilings \u2013 1\u00BD baths',
  'Caf\u00C3\u00A9 on the ground floor: Ã©lÃ©gant finishes',
  'stainless-\nsteel appliances   and\ttwo-tone cabinetry',
  'İstanbul-style TILE, ΣΟΦΊΑ and \uD835\uDC00 astral',
  '',
];

describe('rawOffsets', () => {
  it.each(TEXTS)('gives normalize’s own offsets for %j, first and when kept', (raw) => {
    const expected = normalize(raw).offsets;
    expect(Array.from(rawOffsets(raw))).toEqual(expected);
    const { normalized } = rawOffsetsKept();
    // A fresh copy of the same text (as the next query's row would bring) finds the kept entry.
    expect(Array.from(rawOffsets(`${raw} `.slice(0, raw.length)))).toEqual(expected);
    expect(rawOffsetsKept().normalized).toBe(normalized);
  });

  it('keeps at most about 2,000,000 raw characters, the oldest going first', () => {
    const text = (i: number) => `${i} `.padEnd(1000, 'quartz countertops ');
    for (let i = 0; i < 3000; i++) rawOffsets(text(i));
    const { entries, chars, normalized } = rawOffsetsKept();
    expect(chars).toBeLessThanOrEqual(2_000_000);
    expect(entries).toBeGreaterThanOrEqual(1900);
    expect(entries).toBeLessThanOrEqual(2000 + TEXTS.length);
    // The newest is kept, the oldest was dropped and is normalized again.
    rawOffsets(text(2999));
    expect(rawOffsetsKept().normalized).toBe(normalized);
    rawOffsets(text(0));
    expect(rawOffsetsKept().normalized).toBe(normalized + 1);
    expect(rawOffsetsKept().chars).toBeLessThanOrEqual(2_000_000);
  });

  it('does not keep a text far longer than a chunk', () => {
    const before = rawOffsetsKept();
    const long = 'granite '.repeat(5000);
    expect(Array.from(rawOffsets(long))).toEqual(normalize(long).offsets);
    expect(Array.from(rawOffsets(long))).toEqual(normalize(long).offsets);
    expect(rawOffsetsKept()).toEqual({ ...before, normalized: before.normalized + 2 });
  });
});
