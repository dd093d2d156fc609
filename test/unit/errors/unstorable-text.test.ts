import { unstorableTextAt } from '../../../src/errors/text.js';

/** Text PostgreSQL cannot hold is found wherever it sits in a request's variables, by dotted path. */
describe('unstorableTextAt', () => {
  it('is null for clean values of every kind', () => {
    expect(
      unstorableTextAt({ listings: [{ ref: 'a', bedrooms: 2, note: null, ok: true, area: [1, 2] }] }),
    ).toBeNull();
    expect(unstorableTextAt('plain')).toBeNull();
    expect(unstorableTextAt(undefined)).toBeNull();
    expect(unstorableTextAt({ pair: 'emoji \ud83c\udfe0 is a whole pair' })).toBeNull();
  });

  it('names the first string holding NUL or an unpaired surrogate, by dotted path', () => {
    expect(unstorableTextAt({ listings: [{ ref: 'a' }, { ref: 'b', unit_number: '12\u000004' }] })).toBe(
      'listings.1.unit_number',
    );
    expect(unstorableTextAt({ q: 'lone high \ud800' })).toBe('q');
    expect(unstorableTextAt({ q: 'lone low \udc00 here' })).toBe('q');
    expect(unstorableTextAt(['ok', ['deeper', '\u0000']])).toBe('1.1');
    expect(unstorableTextAt('\u0000')).toBe('input');
    expect(unstorableTextAt({ q: '\u0000' }, 'args')).toBe('args.q');
  });

  it('names an object key that is unstorable text', () => {
    expect(unstorableTextAt({ filters: { ['bad\u0000key']: 1 } })).toBe('filters.bad\u0000key');
  });

  it('walks a deeply nested value without exhausting the stack', () => {
    let deep: unknown = '\ud800';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(unstorableTextAt({ deep })).toBe(`deep${'.0'.repeat(100_000)}`);
  });
});
