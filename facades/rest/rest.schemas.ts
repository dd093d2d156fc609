import { z } from 'zod';
import { CHANGES_LIMIT, ENTITY_ID, ENTITY_ID_RULE, MAX_LISTINGS, describeRange } from '../../src/limits.js';

/**
 * The Fusion routes' schemas. They sit on the Fastify routes (facades/rest/rest.plugin.ts): the
 * request schemas are the routes' one validator (zod, through fastify-type-provider-zod; a failure
 * is the spec's 422 with dotted field paths) and every schema is documented in the OpenAPI that
 * @fastify/swagger emits from the routes.
 */

/** The Building Link path: a building id as digits, within GraphQL's Int. */
const INVALID_ID = 'must be a positive integer building id';
export const BuildingLinkParamsSchema = z.object({
  id: z
    .string()
    .regex(/^[0-9]{1,10}$/, INVALID_ID)
    .transform(Number)
    .refine((id) => id >= ENTITY_ID.min && id <= ENTITY_ID.max, INVALID_ID),
});

/**
 * The change feed's query string. The cursor is opaque: the feed itself says whether it is one it
 * returned (a 422 naming `cursor` otherwise), as it does for GraphQL's `after`.
 */
const INVALID_LIMIT = `must be an integer from ${describeRange(CHANGES_LIMIT)}`;
export const ChangesQuerySchema = z
  .object({
    cursor: z
      .string()
      .max(200)
      .optional()
      .describe('`meta.next_cursor` of the previous call; leave it out to start from the oldest event'),
    limit: z
      .string()
      .regex(/^[0-9]{1,4}$/, INVALID_LIMIT)
      .transform(Number)
      .refine((n) => n >= CHANGES_LIMIT.min && n <= CHANGES_LIMIT.max, INVALID_LIMIT)
      .optional()
      .describe(`Events to return: ${describeRange(CHANGES_LIMIT)}`),
    types: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .describe(
        'Only these event types, separated by commas: project.created, project.changed, building.created, building.changed, floor_plan.created, floor_plan.changed, document.published, document.superseded, document.indexed, document.failed',
      ),
    project_id: z
      .string()
      .regex(/^[0-9]{1,10}$/, ENTITY_ID_RULE)
      .transform(Number)
      .refine((id) => id >= ENTITY_ID.min && id <= ENTITY_ID.max, ENTITY_ID_RULE)
      .optional()
      .describe('Only events of this project'),
  })
  .strict();

/** The Floor Plan Match request envelope. */
const area = z.union([
  z.number().positive().max(100_000),
  z
    .tuple([z.number().positive().max(100_000), z.number().positive().max(100_000)])
    .refine(([a, b]) => a <= b, {
      message: 'min must be ≤ max',
    }),
]);

export const ListingSchema = z
  .object({
    ref: z.string().min(1).max(100).describe('Your reference, echoed in the result'),
    building_id: z.number().int().min(ENTITY_ID.min).max(ENTITY_ID.max).nullish(),
    project_id: z.number().int().min(ENTITY_ID.min).max(ENTITY_ID.max).nullish(),
    address: z.string().min(1).max(300).nullish(),
    unit_number: z.string().min(1).max(20).nullish(),
    floor: z.number().int().min(-5).max(200).nullish(),
    bedrooms: z.number().int().min(0).max(20).nullish(),
    dens: z.number().int().min(0).max(5).nullish(),
    bathrooms: z.number().min(0).max(20).multipleOf(0.5).nullish(),
    interior_sqft: area.nullish().describe('Square feet, or a [min, max] range'),
    exposure: z.enum(['N', 'NE', 'E', 'SE', 'S', 'SW', 'W', 'NW']).nullish(),
  })
  .strict();

export const FloorPlanMatchRequestSchema = z
  .object({
    listings: z
      .array(ListingSchema)
      .min(1)
      .max(MAX_LISTINGS)
      .superRefine((listings, ctx) => {
        const seen = new Set<string>();
        listings.forEach((l, i) => {
          if (seen.has(l.ref))
            ctx.addIssue({ code: 'custom', path: [i, 'ref'], message: `duplicate ref "${l.ref}"` });
          seen.add(l.ref);
        });
      }),
  })
  .strict();

const nullableString = z.string().nullable();

export const BuildingLinkResponseSchema = z.object({
  building: z.object({
    id: z.number().int(),
    name: z.string(),
    addresses: z.array(z.string()),
    aliases: z.array(z.string()),
    mls_building_keys: z.array(z.string()),
    condo_corporation_number: nullableString,
  }),
  project: z.object({
    id: z.number().int(),
    name: z.string(),
    slug: z.string(),
    city: z.string(),
    province: nullableString,
    developer_name: nullableString,
    construction_status: nullableString,
    sales_status: nullableString,
    occupancy_date: nullableString,
  }),
  geo: z.object({ lat: z.number(), lng: z.number() }).nullable(),
  match: z.object({ method: z.string(), confidence: z.number().min(0).max(1), basis: z.array(z.string()) }),
});

const scored = z.object({ floor_plan_id: z.number().int(), name: z.string(), score: z.number() });

export const FloorPlanMatchResponseSchema = z.object({
  results: z.array(
    z.object({
      ref: z.string(),
      status: z.enum(['matched', 'ambiguous', 'no_match']),
      best_match: scored
        .extend({
          model: nullableString,
          project_id: z.number().int(),
          building_id: z.number().int().nullable(),
          bedrooms: z.number().int(),
          dens: z.number().int(),
          bathrooms: z.number(),
          interior_sqft: z.number().int().nullable(),
          exposure: nullableString,
          start_price: z.number().int().nullable(),
        })
        .nullable(),
      candidates: z.array(scored),
      signals: z.array(
        z.object({
          signal: z.string(),
          result: z.string(),
          weight: z.number(),
          score: z.number(),
          detail: z.string(),
        }),
      ),
      message: nullableString,
    }),
  ),
});

const json = z.unknown().describe('Any JSON value; null before a creation');
export const ChangesResponseSchema = z.object({
  data: z.array(
    z.object({
      id: z.string().describe('Unique and stable; webhook deliveries carry it for de-duplication'),
      occurred_at: z.string().describe('When the change committed, ISO 8601'),
      type: z.string().describe('The event type, as listed for the types parameter'),
      subject: z.object({
        type: z.enum(['project', 'building', 'floor_plan', 'document']),
        id: z.number().int(),
        project_id: z.number().int().nullable(),
      }),
      changes: z.array(z.object({ field: z.string(), before: json, after: json })),
    }),
  ),
  meta: z.object({
    returned: z.number().int(),
    next_cursor: z
      .string()
      .describe('Where to resume: pass it as cursor on the next call, also when this page is empty'),
    has_more: z.boolean().describe('More events are ready now: call again at once'),
  }),
});

export const MessageSchema = z.object({ message: z.string() });
export const PlanErrorSchema = z.object({
  message: z.string(),
  scope: z.string(),
  upgrade_required: z.literal(true),
});
export const ValidationErrorSchema = z.object({
  message: z.string(),
  errors: z.record(z.string(), z.array(z.string())),
});
