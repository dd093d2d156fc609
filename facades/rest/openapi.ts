import { z } from 'zod';
import { RATE_POLICIES } from '../../src/auth/rate-limit.js';
import {
  BuildingLinkResponseSchema,
  FloorPlanMatchRequestSchema,
  FloorPlanMatchResponseSchema,
  MessageSchema,
  outputJsonSchema,
  PlanErrorSchema,
  ValidationErrorSchema,
} from './rest.schemas.js';
import { idSchema, MAX_LISTINGS } from '../../src/limits.js';

const json = (schema: z.ZodType) => ({
  'application/json': { schema: outputJsonSchema(schema) },
});
const rateHeaders = {
  'X-RateLimit-Limit': { schema: { type: 'integer' }, description: 'Requests allowed in the window' },
  'X-RateLimit-Remaining': {
    schema: { type: 'integer' },
    description: 'Requests left in the current window',
  },
  'X-RateLimit-Reset': { schema: { type: 'integer' }, description: 'Seconds until the window resets' },
};

function errors(scope: string) {
  return {
    '401': {
      description: 'No key supplied, or the key is invalid, inactive or expired',
      content: json(MessageSchema),
    },
    '403': {
      description: `The key lacks the ${scope} scope ({message}), or the team's plan is below Pro ({message, scope, upgrade_required})`,
      content: {
        'application/json': {
          schema: { oneOf: [z.toJSONSchema(MessageSchema), z.toJSONSchema(PlanErrorSchema)] },
        },
      },
    },
    '429': {
      description: 'Rate limit exceeded: empty body',
      headers: {
        ...rateHeaders,
        'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait' },
      },
    },
    '503': {
      description:
        'The service cannot answer now (database unavailable, server busy or overloaded, request deadline passed): retry after Retry-After seconds',
      headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait' } },
      content: json(MessageSchema),
    },
  };
}

/** OpenAPI 3.1 for the Fusion REST APIs, generated from the same schemas the routes validate with. */
export function buildOpenApi(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Property Data Service: Fusion APIs',
      version: '1.0.0',
      description:
        'Building Link and Floor Plan Match. Send the API key as `Authorization: Bearer <API_KEY>` (a bare key is also accepted). Both scopes need a Pro or Elite plan, checked on every request.',
    },
    servers: [{ url: '/api/v1' }],
    security: [{ apiKey: [] }],
    components: {
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'A scoped API key' } },
    },
    paths: {
      '/building-links/{id}': {
        get: {
          operationId: 'getBuildingLink',
          summary: `Building Link (scope building-links, ${RATE_POLICIES['building-links'].points} requests per minute per key)`,
          parameters: [{ name: 'id', in: 'path', required: true, schema: idSchema() }],
          responses: {
            '200': {
              description: "The building's identities and project",
              headers: rateHeaders,
              content: json(BuildingLinkResponseSchema),
            },
            '404': { description: 'No such building', headers: rateHeaders, content: json(MessageSchema) },
            '422': {
              description: 'The id is not a building id',
              headers: rateHeaders,
              content: json(ValidationErrorSchema),
            },
            ...errors('building-links'),
          },
        },
      },
      '/floorplan-match': {
        post: {
          operationId: 'matchFloorPlans',
          summary: `Floor Plan Match: 1 to ${MAX_LISTINGS} listings (scope floorplan-match, ${RATE_POLICIES['floorplan-match'].points} requests per minute per key)`,
          requestBody: { required: true, content: json(FloorPlanMatchRequestSchema) },
          responses: {
            '200': {
              description: 'One result per listing, in request order',
              headers: rateHeaders,
              content: json(FloorPlanMatchResponseSchema),
            },
            '422': {
              description: 'The request body failed validation',
              headers: rateHeaders,
              content: json(ValidationErrorSchema),
            },
            ...errors('floorplan-match'),
          },
        },
      },
    },
  };
}
