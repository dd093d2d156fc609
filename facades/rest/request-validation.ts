import { Ajv } from 'ajv';
import { z } from 'zod';
import { FloorPlanMatchRequestSchema } from './rest.schemas.js';

export type FloorPlanMatchRequest = z.infer<typeof FloorPlanMatchRequestSchema>;

/**
 * The Floor Plan Match body's validation, compiled once.
 *
 * The zod schema is the contract: OpenAPI documents the body from it and the 422's messages are
 * its own. Checking 100 listings with zod costs about a tenth of a request's CPU; the schema's
 * own JSON Schema (`z.toJSONSchema`, as OpenAPI publishes it) compiled by ajv checks them in a
 * small fraction of that (the REST section of `npm run bench`). So a body is checked by that first, and by what JSON Schema cannot say: each range's
 * min ≤ max and refs unique (the schema's two refinements). A body that passes is valid by zod too
 * and is used as it is: zod would return an equal copy, since the schema has no transform or
 * default. Any body that does not pass goes to zod, which decides and writes the errors. So the
 * quick check may only ever be stricter than zod, never laxer (both measure a string in code
 * points). `test/unit/rest/request-validation.test.ts` holds the quick check to zod's verdict and
 * answer over generated bodies around every limit, valid and not.
 */
export function floorPlanMatchValidator(): (body: unknown) => z.ZodSafeParseResult<FloorPlanMatchRequest> {
  const quick = quickFloorPlanMatchCheck();
  return (body) =>
    quick(body) ? { success: true, data: body } : FloorPlanMatchRequestSchema.safeParse(body);
}

/** The quick check alone: true only for a body zod accepts as it is. */
export function quickFloorPlanMatchCheck(): (body: unknown) => body is FloorPlanMatchRequest {
  const valid = new Ajv({ strict: false }).compile(
    z.toJSONSchema(FloorPlanMatchRequestSchema, { io: 'input', target: 'draft-07' }),
  );
  return (body): body is FloorPlanMatchRequest =>
    valid(body) && refinementsHold(body as FloorPlanMatchRequest);
}

/** The schema's two refinements, on a body that has the schema's shape. */
function refinementsHold(body: FloorPlanMatchRequest): boolean {
  const refs = new Set<string>();
  for (const listing of body.listings) {
    if (refs.has(listing.ref)) return false;
    refs.add(listing.ref);
    const area = listing.interior_sqft;
    if (Array.isArray(area) && !(area[0] <= area[1])) return false;
  }
  return true;
}
