import type { FastifySchemaValidationError } from 'fastify';
import {
  BuildingLinkParamsSchema,
  ChangesQuerySchema,
  FloorPlanMatchRequestSchema,
} from '../../../facades/rest/rest.schemas.js';
import { validationError, validatorCompiler } from '../../../facades/rest/rest.validation.js';

/**
 * The Fusion routes' one validator, as the routes compile it: what passes unchanged, and the 422's
 * fields and messages for what does not (one message per field, by dotted path).
 */
type Validate = ((data: unknown) => boolean) & { errors?: FastifySchemaValidationError[] | null };
const compile = (schema: unknown, httpPart: string): Validate =>
  validatorCompiler({ schema: schema as never, method: 'POST', url: '/api/v1/x', httpPart }) as Validate;

const body = compile(FloorPlanMatchRequestSchema, 'body');
const params = compile(BuildingLinkParamsSchema, 'params');
const query = compile(ChangesQuerySchema, 'querystring');

/** The 422's `errors` for `data`, or null when it passes. */
function fieldsOf(validate: Validate, data: unknown, part: string): Record<string, string[]> | null {
  if (validate(data)) return null;
  const error = validationError(validate.errors!, part);
  expect(error.code).toBe('BAD_USER_INPUT');
  return error.details.fields!;
}

describe('Floor Plan Match body', () => {
  it('passes a full listing and leaves the body exactly as sent (no coercion, defaults or removal)', () => {
    const sent = {
      listings: [
        {
          ref: 'a',
          building_id: 12,
          project_id: null,
          address: '1 King St W',
          unit_number: '1204',
          floor: 12,
          bedrooms: 1,
          dens: 1,
          bathrooms: 1.5,
          interior_sqft: [600, 650],
          exposure: 'SW',
        },
        { ref: 'b', interior_sqft: 640, exposure: null },
      ],
    };
    const copy = structuredClone(sent);
    expect(fieldsOf(body, sent, 'body')).toBeNull();
    expect(sent).toEqual(copy);
  });

  it('names every failed field once: unknown keys at their object, types, lengths', () => {
    expect(fieldsOf(body, { listings: [{ ref: '', bedrooms: 'two', colour: 'red' }] }, 'body')).toEqual({
      'listings.0': ['Unrecognized key: "colour"'],
      'listings.0.ref': ['must NOT have fewer than 1 characters'],
      'listings.0.bedrooms': ['must be integer or null'],
    });
  });

  it('coerces nothing: a number as text is the wrong type', () => {
    expect(fieldsOf(body, { listings: [{ ref: 'a', bedrooms: '2', building_id: '7' }] }, 'body')).toEqual({
      'listings.0.bedrooms': ['must be integer or null'],
      'listings.0.building_id': ['must be integer or null'],
    });
  });

  it('refs are unique: each repeat is named at its ref', () => {
    const listings = [{ ref: 'a' }, { ref: 'b' }, { ref: 'a' }, { ref: 'a' }];
    expect(fieldsOf(body, { listings }, 'body')).toEqual({
      'listings.2.ref': ['duplicate ref "a"'],
      'listings.3.ref': ['duplicate ref "a"'],
    });
  });

  it('an area is a positive number or a [min, max] pair with min ≤ max', () => {
    const area = (interior_sqft: unknown) =>
      fieldsOf(body, { listings: [{ ref: 'a', interior_sqft }] }, 'body');
    expect(area([600, 600])).toBeNull();
    expect(area([900, 800])).toEqual({ 'listings.0.interior_sqft': ['min must be ≤ max'] });
    expect(area([1, 2, 3])).toEqual({ 'listings.0.interior_sqft': ['must NOT have more than 2 items'] });
    expect(area([1])).toEqual({ 'listings.0.interior_sqft': ['must NOT have fewer than 2 items'] });
    expect(area([1, 200_000])).toEqual({ 'listings.0.interior_sqft.1': ['must be <= 100000'] });
    expect(area(0)).toEqual({ 'listings.0.interior_sqft': ['must be > 0'] });
    expect(area('big')).toEqual({ 'listings.0.interior_sqft': ['must be number or array or null'] });
  });

  it('limits, enums, required fields and the body as a whole', () => {
    expect(
      fieldsOf(
        body,
        { listings: [{ ref: 'a', bedrooms: -1, exposure: 'UP', bathrooms: 1.25 }, { building_id: 2 ** 31 }] },
        'body',
      ),
    ).toEqual({
      'listings.0.bedrooms': ['must be >= 0'],
      'listings.0.exposure': ['must be one of N, NE, E, SE, S, SW, W, NW, null'],
      'listings.0.bathrooms': ['must be multiple of 0.5'],
      'listings.1.ref': ['is required'],
      'listings.1.building_id': ['must be <= 2147483647'],
    });
    expect(fieldsOf(body, { listings: [] }, 'body')).toEqual({
      listings: ['must NOT have fewer than 1 items'],
    });
    expect(fieldsOf(body, [1, 2], 'body')).toEqual({ body: ['must be object'] });
    expect(fieldsOf(body, {}, 'body')).toEqual({ listings: ['is required'] });
  });

  it('names an unknown key as sent, also one with a "/" or "~" in it', () => {
    expect(fieldsOf(body, { listings: [{ ref: 'a', 'a/b~c': 1 }], __proto__x: 1 }, 'body')).toEqual({
      body: ['Unrecognized key: "__proto__x"'],
      'listings.0': ['Unrecognized key: "a/b~c"'],
    });
  });

  it('says which request part failed', () => {
    expect(validationError([], 'body').message).toBe('The request body failed validation');
    expect(validationError([], 'querystring').message).toBe('The request querystring failed validation');
  });
});

describe('integers written as text (the Building Link path, the change feed query)', () => {
  it('a building id is digits from 1 to 2^31-1', () => {
    for (const id of ['1', '0007', '2147483647'])
      expect([id, fieldsOf(params, { id }, 'params')]).toEqual([id, null]);
    for (const id of ['abc', '0', '2147483648', '12345678901', '1e3', ' 1', '-1', '1.0', '']) {
      expect([id, fieldsOf(params, { id }, 'params')]).toEqual([
        id,
        { id: ['must be a positive integer building id'] },
      ]);
    }
  });

  it('the change feed names each bad parameter, and an unknown one', () => {
    expect(
      fieldsOf(query, { limit: '200', project_id: '3', types: 'project.created' }, 'querystring'),
    ).toBeNull();
    expect(fieldsOf(query, { limit: '0', project_id: 'x', after: 'abc' }, 'querystring')).toEqual({
      limit: ['must be an integer from 1 to 200, default 50'],
      project_id: ['must be an integer id from 1 to 2147483647'],
      querystring: ['Unrecognized key: "after"'],
    });
    expect(fieldsOf(query, { limit: ['1', '2'] }, 'querystring')).toEqual({ limit: ['must be string'] });
  });
});
