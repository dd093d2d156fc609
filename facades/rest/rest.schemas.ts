import { z } from 'zod';
import { ENTITY_ID, MAX_LISTINGS } from '../../src/limits.js';

/** The Floor Plan Match request envelope: validated here (422 with dotted paths), documented in OpenAPI from the same schema. */
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

/** A schema as the JSON Schema that OpenAPI documents and the response serializer compiles. */
export function outputJsonSchema(schema: z.ZodType): z.core.JSONSchema.BaseSchema {
  return z.toJSONSchema(schema, { io: 'output' });
}
