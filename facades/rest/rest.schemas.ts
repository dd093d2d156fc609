import { Type, type Static, type TProperties, type TSchema } from 'typebox';
import { CHANGES_LIMIT, ENTITY_ID, ENTITY_ID_RULE, MAX_LISTINGS, describeRange } from '../../src/limits.js';

/**
 * The Fusion routes' schemas, in TypeBox: JSON Schema 2020-12 with static types. They sit on the
 * Fastify routes (facades/rest/rest.plugin.ts): the request schemas are the routes' one validator
 * (compiled with ajv, facades/rest/rest.validation.ts; a failure is the spec's 422 with dotted
 * field paths) and every schema is documented in the OpenAPI that @fastify/swagger emits from the
 * routes. Three rules JSON Schema cannot say are the validator's own keywords, named `x-…` so the
 * published document shows them: `x-integer-text` (an integer written as text, within a range),
 * `x-unique-by` (items unique by a key) and `x-ordered` (a [min, max] pair with min ≤ max).
 */

/** `schema`, or null: one schema with both types, so a failure has one message (no `anyOf` branches). */
function orNull<T extends TSchema>(schema: T): ReturnType<typeof Type.Unsafe<Static<T> | null>> {
  const { type, enum: values, ...rest } = schema as unknown as { type: string; enum?: unknown[] };
  return Type.Unsafe<Static<T> | null>({
    ...rest,
    type: [type, 'null'],
    ...(values ? { enum: [...values, null] } : {}),
  });
}

/** An object with these properties and no others. */
const closed = <T extends TProperties>(properties: T) =>
  Type.Object(properties, { additionalProperties: false });

/** One of these strings. */
const oneOf = <const T extends readonly string[]>(values: T) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });

/** An integer written as text (a path segment, a query parameter): decimal digits within the range. */
const integerText = (minimum: number, maximum: number, message: string, description?: string) =>
  Type.String({ 'x-integer-text': { minimum, maximum, message }, ...(description ? { description } : {}) });

/** The Building Link path: a building id as digits, within GraphQL's Int. */
export const BuildingLinkParamsSchema = closed({
  id: integerText(ENTITY_ID.min, ENTITY_ID.max, 'must be a positive integer building id'),
});

/**
 * The change feed's query string. The cursor is opaque: the feed itself says whether it is one it
 * returned (a 422 naming `cursor` otherwise), as it does for GraphQL's `after`.
 */
export const ChangesQuerySchema = closed({
  cursor: Type.Optional(
    Type.String({
      maxLength: 200,
      description: '`meta.next_cursor` of the previous call; leave it out to start from the oldest event',
    }),
  ),
  limit: Type.Optional(
    integerText(
      CHANGES_LIMIT.min,
      CHANGES_LIMIT.max,
      `must be an integer from ${describeRange(CHANGES_LIMIT)}`,
      `Events to return: ${describeRange(CHANGES_LIMIT)}`,
    ),
  ),
  types: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 500,
      description:
        'Only these event types, separated by commas: project.created, project.changed, building.created, building.changed, floor_plan.created, floor_plan.changed, document.published, document.superseded, document.indexed, document.failed',
    }),
  ),
  project_id: Type.Optional(
    integerText(ENTITY_ID.min, ENTITY_ID.max, ENTITY_ID_RULE, 'Only events of this project'),
  ),
});

/** Square feet, or a [min, max] range: one schema, so a bad area has one message. */
const AREA = { exclusiveMinimum: 0, maximum: 100_000 };
const area = Type.Unsafe<number | [number, number] | null>({
  type: ['number', 'array', 'null'],
  ...AREA,
  prefixItems: [
    { type: 'number', ...AREA },
    { type: 'number', ...AREA },
  ],
  items: false,
  minItems: 2,
  maxItems: 2,
  'x-ordered': true,
  description: 'Square feet, or a [min, max] range',
});

const EXPOSURES = ['N', 'NE', 'E', 'SE', 'S', 'SW', 'W', 'NW'] as const;
const id = Type.Integer({ minimum: ENTITY_ID.min, maximum: ENTITY_ID.max });

export const ListingSchema = closed({
  ref: Type.String({ minLength: 1, maxLength: 100, description: 'Your reference, echoed in the result' }),
  building_id: Type.Optional(orNull(id)),
  project_id: Type.Optional(orNull(id)),
  address: Type.Optional(orNull(Type.String({ minLength: 1, maxLength: 300 }))),
  unit_number: Type.Optional(orNull(Type.String({ minLength: 1, maxLength: 20 }))),
  floor: Type.Optional(orNull(Type.Integer({ minimum: -5, maximum: 200 }))),
  bedrooms: Type.Optional(orNull(Type.Integer({ minimum: 0, maximum: 20 }))),
  dens: Type.Optional(orNull(Type.Integer({ minimum: 0, maximum: 5 }))),
  bathrooms: Type.Optional(orNull(Type.Number({ minimum: 0, maximum: 20, multipleOf: 0.5 }))),
  interior_sqft: Type.Optional(area),
  exposure: Type.Optional(orNull(oneOf(EXPOSURES))),
});

export const FloorPlanMatchRequestSchema = closed({
  listings: Type.Array(ListingSchema, {
    minItems: 1,
    maxItems: MAX_LISTINGS,
    'x-unique-by': 'ref',
  }),
});

// The answers' schemas document the routes (the e2e tests check every answer against them): closed
// objects, so a field the documentation does not name fails those checks.
const nullableString = orNull(Type.String());
const nullableInteger = orNull(Type.Integer());

export const BuildingLinkResponseSchema = closed({
  building: closed({
    id: Type.Integer(),
    name: Type.String(),
    addresses: Type.Array(Type.String()),
    aliases: Type.Array(Type.String()),
    mls_building_keys: Type.Array(Type.String()),
    condo_corporation_number: nullableString,
  }),
  project: closed({
    id: Type.Integer(),
    name: Type.String(),
    slug: Type.String(),
    city: Type.String(),
    province: nullableString,
    developer_name: nullableString,
    construction_status: nullableString,
    sales_status: nullableString,
    occupancy_date: nullableString,
  }),
  geo: orNull(closed({ lat: Type.Number(), lng: Type.Number() })),
  match: closed({
    method: Type.String(),
    confidence: Type.Number({ minimum: 0, maximum: 1 }),
    basis: Type.Array(Type.String()),
  }),
});

const scored = {
  floor_plan_id: Type.Integer(),
  name: Type.String(),
  score: Type.Number(),
};

export const FloorPlanMatchResponseSchema = closed({
  results: Type.Array(
    closed({
      ref: Type.String(),
      status: oneOf(['matched', 'ambiguous', 'no_match']),
      best_match: orNull(
        closed({
          ...scored,
          model: nullableString,
          project_id: Type.Integer(),
          building_id: nullableInteger,
          bedrooms: Type.Integer(),
          dens: Type.Integer(),
          bathrooms: Type.Number(),
          interior_sqft: nullableInteger,
          exposure: nullableString,
          start_price: nullableInteger,
        }),
      ),
      candidates: Type.Array(closed(scored)),
      signals: Type.Array(
        closed({
          signal: Type.String(),
          result: Type.String(),
          weight: Type.Number(),
          score: Type.Number(),
          detail: Type.String(),
        }),
      ),
      message: nullableString,
    }),
  ),
});

const json = Type.Unknown({ description: 'Any JSON value; null before a creation' });
export const ChangesResponseSchema = closed({
  data: Type.Array(
    closed({
      id: Type.String({ description: 'Unique and stable; webhook deliveries carry it for de-duplication' }),
      occurred_at: Type.String({ description: 'When the change committed, ISO 8601' }),
      type: Type.String({ description: 'The event type, as listed for the types parameter' }),
      subject: closed({
        type: oneOf(['project', 'building', 'floor_plan', 'document']),
        id: Type.Integer(),
        project_id: nullableInteger,
      }),
      changes: Type.Array(closed({ field: Type.String(), before: json, after: json })),
    }),
  ),
  meta: closed({
    returned: Type.Integer(),
    next_cursor: Type.String({
      description: 'Where to resume: pass it as cursor on the next call, also when this page is empty',
    }),
    has_more: Type.Boolean({ description: 'More events are ready now: call again at once' }),
  }),
});

export const MessageSchema = closed({ message: Type.String() });
export const PlanErrorSchema = closed({
  message: Type.String(),
  scope: Type.String(),
  upgrade_required: Type.Literal(true),
});
export const ValidationErrorSchema = closed({
  message: Type.String(),
  errors: Type.Record(Type.String(), Type.Array(Type.String())),
});
