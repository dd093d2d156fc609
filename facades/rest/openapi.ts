import type { FastifyDynamicSwaggerOptions, SwaggerTransform } from '@fastify/swagger';
import { Type, type TSchema } from 'typebox';
import { MessageSchema, PlanErrorSchema, ValidationErrorSchema } from './rest.schemas.js';

/**
 * How the Fusion routes are documented: the OpenAPI 3.1 document is emitted by @fastify/swagger
 * from the routes' own schemas (facades/rest/rest.plugin.ts), served at /api/v1/openapi.json and
 * committed as schema/openapi.json.
 */

const rateLimitHeaders = {
  'X-RateLimit-Limit': { type: 'integer', description: 'Requests allowed in the window' },
  'X-RateLimit-Remaining': { type: 'integer', description: 'Requests left in the current window' },
  'X-RateLimit-Reset': { type: 'integer', description: 'Seconds until the window resets' },
};
const retryAfter = { 'Retry-After': { type: 'integer', description: 'Seconds to wait' } };

/** A documented answer: its description, the headers it carries, and its JSON body (none for an empty one). */
interface Answer {
  description: string;
  headers?: Record<string, { type: string; description: string }>;
  content?: { 'application/json': { schema: TSchema } };
}

function answer(description: string, body: TSchema | null, headers?: Answer['headers']): Answer {
  return {
    description,
    ...(headers ? { headers } : {}),
    ...(body ? { content: { 'application/json': { schema: body } } } : {}),
  };
}

/** A route's answers: its own (with the rate-limit headers every decided request carries) and the spec's error table. */
export function answers(scope: string, own: Record<number, [string, TSchema]>): Record<number, Answer> {
  return {
    ...Object.fromEntries(
      Object.entries(own).map(([status, [description, body]]) => [
        status,
        answer(description, body, rateLimitHeaders),
      ]),
    ),
    400: answer(
      'The request cannot be read: a "%" in the URL that does not start a %XX escape of UTF-8 text, or a body that is not JSON',
      MessageSchema,
    ),
    401: answer('No key supplied, or the key is invalid, inactive or expired', MessageSchema),
    403: answer(
      `The key lacks the ${scope} scope ({message}), or the team's plan is below Pro ({message, scope, upgrade_required})`,
      Type.Union([MessageSchema, PlanErrorSchema]),
    ),
    429: answer('Rate limit exceeded: empty body', null, { ...rateLimitHeaders, ...retryAfter }),
    503: answer(
      'The service cannot answer now (database unavailable, server busy or overloaded, request deadline passed): retry after Retry-After seconds',
      MessageSchema,
      retryAfter,
    ),
  };
}

export const validationFailed = (description: string): [string, TSchema] => [
  description,
  ValidationErrorSchema,
];

/**
 * The schemas are JSON Schema already; what @fastify/swagger does not read from a route's answers
 * (their headers, an answer without a body) is written here as it reads it.
 */
const transform: SwaggerTransform = ({ schema, url }) => {
  const given = (schema as { response?: Record<string, Answer> } | undefined)?.response;
  if (!given) return { schema, url };
  const response = Object.fromEntries(
    Object.entries(given).map(([status, { description, headers, content }]) => [
      status,
      // @fastify/swagger writes no content for a schema of type null.
      {
        ...(content ? { description, content } : { type: 'null', description }),
        ...(headers ? { headers } : {}),
      },
    ]),
  );
  return { schema: { ...schema, response }, url };
};

export const swaggerOptions: FastifyDynamicSwaggerOptions = {
  openapi: {
    openapi: '3.1.0',
    info: {
      title: 'Property Data Service: Fusion APIs',
      version: '1.0.0',
      description:
        'Building Link, Floor Plan Match and the change feed. Send the API key as `Authorization: Bearer <API_KEY>` (a bare key is also accepted). Each route needs its scope on the key (`building-links`, `floorplan-match`, `changes`) and a Pro or Elite plan in good standing, checked on every request in that order, before the rate limit and before the request is validated.',
    },
    servers: [{ url: '/api/v1' }],
    security: [{ apiKey: [] }],
    components: {
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'A scoped API key' } },
    },
  },
  transform,
};
