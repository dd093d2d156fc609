import fc from 'fast-check';
import {
  floorPlanMatchValidator,
  quickFloorPlanMatchCheck,
} from '../../../facades/rest/request-validation.js';
import { FloorPlanMatchRequestSchema } from '../../../facades/rest/rest.schemas.js';
import { MAX_LISTINGS } from '../../../src/limits.js';

/**
 * Floor Plan Match bodies are checked by the request schema's JSON Schema (ajv) before zod, and a
 * body that passes is used without zod. That is right only if the quick check never accepts what
 * zod refuses, and accepts what it accepts as zod would answer it. Both are held here over bodies
 * generated around every limit of the schema, valid and not.
 */

const quick = quickFloorPlanMatchCheck();
const validate = floorPlanMatchValidator();

/**
 * Omitted (the key absent), a valid value (most often), or an invalid one: so that whole bodies
 * are valid often enough for the quick check's acceptances to be tested.
 */
const field = <T>(valid: fc.Arbitrary<T>, invalid: fc.Arbitrary<unknown>) =>
  fc.option(fc.oneof({ weight: 12, arbitrary: valid }, { weight: 1, arbitrary: invalid }), {
    nil: undefined,
    freq: 3,
  });

/** A string of `n` code points: ASCII, astral characters (two UTF-16 units each), or both. */
const sized = (n: number) =>
  fc.constantFrom('x'.repeat(n), '😀'.repeat(n), '😀'.repeat(n - 1) + 'x', '\uD800'.repeat(n));

const MAX_INT = 2_147_483_647;

const listing = fc
  .record(
    {
      ref: fc.oneof(
        { weight: 12, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) },
        // A few refs often, so that bodies with a duplicate ref are common.
        { weight: 4, arbitrary: fc.constantFrom('a', 'b', 'c') },
        { weight: 3, arbitrary: fc.oneof(sized(1), sized(100)) },
        { weight: 1, arbitrary: fc.oneof(sized(101), fc.constantFrom('', 7, null)) },
      ),
      building_id: field(
        fc.oneof(fc.integer({ min: 1, max: MAX_INT }), fc.constant(null)),
        fc.constantFrom(0, -1, MAX_INT + 1, 1.5, '3'),
      ),
      project_id: field(
        fc.oneof(fc.integer({ min: 1, max: 50 }), fc.constant(null)),
        fc.constantFrom(0, 2.5, true),
      ),
      address: field(
        fc.oneof(sized(1), sized(300), fc.constantFrom('1 Main St', null)),
        fc.oneof(sized(301), fc.constantFrom('', 4)),
      ),
      unit_number: field(
        fc.oneof(sized(20), fc.constantFrom('1204', 'PH05', null)),
        fc.oneof(sized(21), fc.constantFrom('', 1204)),
      ),
      floor: field(
        fc.oneof(fc.integer({ min: -5, max: 200 }), fc.constant(null)),
        fc.constantFrom(-6, 201, 3.5, '4'),
      ),
      bedrooms: field(
        fc.oneof(fc.integer({ min: 0, max: 20 }), fc.constant(null)),
        fc.constantFrom(-1, 21, 1.5),
      ),
      dens: field(fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constant(null)), fc.constantFrom(-1, 6, 0.5)),
      bathrooms: field(
        fc.oneof(
          fc.integer({ min: 0, max: 40 }).map((n) => n / 2),
          fc.constant(null),
        ),
        fc.constantFrom(-0.5, 1.25, 20.5, 2.0000000000000004, '2'),
      ),
      interior_sqft: field(
        fc.oneof(
          fc.double({ min: Number.MIN_VALUE, max: 100_000, noNaN: true }),
          fc.constantFrom(100_000, null, [600, 600]),
          fc.tuple(fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 1, max: 100_000 })),
        ),
        fc.constantFrom(0, -1, 100_000.5, '600', [500], [500, 600, 700], [0, 600], ['500', 600]),
      ),
      exposure: field(
        fc.constantFrom('N', 'NE', 'E', 'SE', 'S', 'SW', 'W', 'NW', null),
        fc.constantFrom('north', 'n', '', 1),
      ),
      colour: fc.option(fc.constant('an unknown key'), { nil: undefined, freq: 1 }),
    },
    { requiredKeys: [] },
  )
  .map((l) => {
    // Absent keys, not keys holding undefined (JSON has none).
    const out: Record<string, unknown> = { ...l };
    for (const key of Object.keys(out)) if (out[key] === undefined) delete out[key];
    return out;
  });

const body = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.array(listing, { minLength: 0, maxLength: 6 }).map((listings) => ({ listings })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.array(listing, { minLength: 1, maxLength: 2 }), fc.constantFrom('extra', 'listing'))
      .map(([listings, key]) => ({ listings, [key]: 1 })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(null, [], 'listings', 5, {}, { listings: null }, { listings: {} }),
  },
);

/** Only what the schema accepts: the quick check must take all of it. */
const validListing = fc
  .record(
    {
      ref: fc.string({ minLength: 1, maxLength: 100, unit: 'grapheme-ascii' }),
      building_id: fc.option(fc.integer({ min: 1, max: MAX_INT }), { nil: null }),
      unit_number: fc.option(fc.string({ minLength: 1, maxLength: 20, unit: 'binary' }), { nil: null }),
      bedrooms: fc.option(fc.integer({ min: 0, max: 20 }), { nil: null }),
      bathrooms: fc.integer({ min: 0, max: 40 }).map((n) => n / 2),
      interior_sqft: fc.oneof(
        fc.integer({ min: 1, max: 100_000 }),
        fc
          .tuple(fc.integer({ min: 1, max: 50_000 }), fc.integer({ min: 0, max: 50_000 }))
          .map(([a, d]) => [a, a + d]),
      ),
      exposure: fc.constantFrom('N', 'NE', 'E', 'SE', 'S', 'SW', 'W', 'NW'),
    },
    { requiredKeys: ['ref'] },
  )
  .filter((l) => [...l.ref].length <= 100 && [...(l.unit_number ?? 'x')].length <= 20);

describe('Floor Plan Match body validation', () => {
  it('accepts quickly only what zod accepts, answering what zod answers', () => {
    let accepted = 0;
    fc.assert(
      fc.property(body, (b) => {
        const byZod = FloorPlanMatchRequestSchema.safeParse(b);
        if (quick(b)) {
          accepted++;
          expect(byZod.success).toBe(true);
          expect(b).toEqual(byZod.data);
        }
        // What the route uses: the quick answer, or zod's own (errors included).
        expect(validate(b)).toEqual(byZod);
      }),
      { numRuns: 3000 },
    );
    // The generator reaches valid bodies too, so the implication above is tested, not vacuous.
    expect(accepted).toBeGreaterThan(100);
  });

  it('takes every valid body on the quick path', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(validListing, { minLength: 1, maxLength: 8, selector: (l) => l.ref }),
        (listings) => {
          expect(quick({ listings })).toBe(true);
          expect(FloorPlanMatchRequestSchema.safeParse({ listings }).success).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it.each([
    ['a duplicate ref', { listings: [{ ref: 'a' }, { ref: 'a' }] }],
    ['a range with min above max', { listings: [{ ref: 'a', interior_sqft: [700, 600] }] }],
    ['a ref of 101 astral characters', { listings: [{ ref: '😀'.repeat(101) }] }],
    ['101 listings', { listings: Array.from({ length: MAX_LISTINGS + 1 }, (_, i) => ({ ref: `r${i}` })) }],
    ['an unknown key', { listings: [{ ref: 'a', colour: 'blue' }] }],
    ['an own __proto__ key', JSON.parse('{"listings":[{"ref":"a","__proto__":{"x":1}}]}') as unknown],
  ])('leaves %s to zod, which refuses it', (_what, b) => {
    expect(quick(b)).toBe(false);
    expect(validate(b).success).toBe(false);
  });

  it('takes the largest valid body quickly', () => {
    const b = { listings: Array.from({ length: MAX_LISTINGS }, (_, i) => ({ ref: `r${i}`, bedrooms: 2 })) };
    expect(quick(b)).toBe(true);
    expect(validate(b)).toEqual(FloorPlanMatchRequestSchema.safeParse(b));
  });
});
