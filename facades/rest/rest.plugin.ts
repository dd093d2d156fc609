import fastifySwagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import {
  validatorCompiler,
  type FastifyPluginCallbackZod,
  type ZodFastifySchemaValidationError,
} from 'fastify-type-provider-zod';
import type { GraphQLSchema } from 'graphql';
import { createContext, type AppDeps, type RequestContext } from '../../src/context/context.js';
import type { FusionScope } from '../../src/enums.js';
import { AppError } from '../../src/errors/catalogue.js';
import { RATE_POLICIES } from '../../src/auth/rate-limit.js';
import { rateHeaders, sendRestError } from '../../src/http/rest-errors.js';
import { MAX_LISTINGS } from '../../src/limits.js';
import { loadOperation, runOperation, type FacadeOperation } from '../operation.js';
import { answers, swaggerOptions, validationFailed } from './openapi.js';
import {
  BuildingLinkParamsSchema,
  BuildingLinkResponseSchema,
  FloorPlanMatchRequestSchema,
  FloorPlanMatchResponseSchema,
  MessageSchema,
} from './rest.schemas.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** A Fusion API request's one context, made before its body or path is validated. */
    fusionContext: RequestContext | null;
  }
}

const PREFIX = '/api/v1';

/** How the routes are served. The OpenAPI emitter declares them without serving them (null). */
interface Serving {
  /** The `preValidation` hook that makes the one context: credential → scope → plan → rate limit. */
  context(scope: FusionScope): (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  run(
    op: FacadeOperation,
    variables: Record<string, unknown>,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<unknown>;
  buildingLink: FacadeOperation;
  floorPlanMatch: FacadeOperation;
}

/** The spec's 422: every failed check of the path or body, by dotted field path. */
function validationError(issues: ZodFastifySchemaValidationError[], part: string): AppError {
  const fields: Record<string, string[]> = {};
  for (const issue of issues) {
    const path = (issue.instancePath ?? '').split('/').slice(1).join('.') || part;
    (fields[path] ??= []).push(issue.message ?? 'is invalid');
  }
  const message =
    part === 'body' ? 'The request body failed validation' : `The request ${part} failed validation`;
  return new AppError('BAD_USER_INPUT', message, { fields });
}

/** The Fusion API routes with their schemas (registered where @fastify/swagger sees them). */
const fusionRoutes: FastifyPluginCallbackZod<{ serving: Serving | null }> = (api, { serving }, done) => {
  api.setValidatorCompiler(validatorCompiler);
  // Answers are written with JSON.stringify, not a serializer compiled from the response
  // schemas: for Floor Plan Match's ~10,000 fields fast-json-stringify built the text from
  // ~10,000 pieces, which then had to be joined. The GraphQL document gives the documented
  // shape, and the contract test checks answers against the same schemas.
  api.setSerializerCompiler(() => JSON.stringify);

  const notServed = (_request: FastifyRequest, reply: FastifyReply) => reply.code(404).send();
  api.get('/building-links/:id', {
    schema: {
      operationId: 'getBuildingLink',
      summary: `Building Link (scope building-links, ${RATE_POLICIES['building-links'].points} requests per minute per key)`,
      params: BuildingLinkParamsSchema,
      response: answers('building-links', {
        200: ["The building's identities and project", BuildingLinkResponseSchema],
        404: ['No such building', MessageSchema],
        422: validationFailed('The id is not a building id'),
      }),
    },
    preValidation: serving?.context('building-links') ?? [],
    handler: serving
      ? (request, reply) => serving.run(serving.buildingLink, { id: request.params.id }, request, reply)
      : notServed,
  });
  api.post('/floorplan-match', {
    schema: {
      operationId: 'matchFloorPlans',
      summary: `Floor Plan Match: 1 to ${MAX_LISTINGS} listings (scope floorplan-match, ${RATE_POLICIES['floorplan-match'].points} requests per minute per key)`,
      body: FloorPlanMatchRequestSchema,
      response: answers('floorplan-match', {
        200: ['One result per listing, in request order', FloorPlanMatchResponseSchema],
        422: validationFailed('The request body failed validation'),
      }),
    },
    preValidation: serving?.context('floorplan-match') ?? [],
    handler: serving
      ? (request, reply) =>
          serving.run(serving.floorPlanMatch, { listings: request.body.listings }, request, reply)
      : notServed,
  });
  for (const [url, allow] of [
    ['/building-links/:id', 'GET'],
    ['/floorplan-match', 'POST'],
  ] as const) {
    api.route({
      method: ['PUT', 'PATCH', 'DELETE', ...(allow === 'GET' ? (['POST'] as const) : (['GET'] as const))],
      url,
      schema: { hide: true },
      handler: (_req, reply) =>
        reply
          .code(405)
          .header('allow', allow)
          .send({ message: `Use ${allow}` }),
    });
  }
  done();
};

/** The OpenAPI document of the Fusion APIs, as the server publishes it (schema/openapi.json). */
export async function buildOpenApi(): Promise<Record<string, unknown>> {
  const app = Fastify();
  await app.register(fastifySwagger, swaggerOptions);
  await app.register(fusionRoutes, { prefix: PREFIX, serving: null });
  await app.ready();
  const document = app.swagger() as unknown as Record<string, unknown>;
  await app.close();
  return document;
}

/**
 * The Fusion REST APIs under /api/v1: each route is a GraphQL operation on the one schema run with
 * the one context. Order of checks: credential → scope → plan → rate limit (the `preValidation`
 * hook) → validation of the path or body (the route's schema) → the operation.
 */
export async function registerRest(
  app: FastifyInstance,
  schema: GraphQLSchema,
  deps: AppDeps,
): Promise<void> {
  const dir = import.meta.dirname;
  const serving: Serving = {
    buildingLink: loadOperation(schema, dir, 'building-link.graphql'),
    floorPlanMatch: loadOperation(schema, dir, 'floorplan-match.graphql'),
    context: (scope) => async (request, reply) => {
      request.fusionContext = await createContext(
        {
          transport: 'rest',
          authorization: request.headers.authorization,
          ip: request.ip,
          requestId: request.id,
          scope,
          ratePolicy: scope,
          signal: request.workSignal,
        },
        deps,
      );
      if (request.fusionContext.rate) rateHeaders(reply, request.fusionContext.rate);
    },
    run: async (op, variables, request, reply) => {
      const data = await runOperation<{ result: unknown }>(op, variables, request.fusionContext!);
      // The request's deadline may have answered it already (503): an answer nobody will read is
      // not serialized, when the server is busiest.
      return reply.sent ? reply : data.result;
    },
  };

  await app.register(
    async (api) => {
      api.decorateRequest('fusionContext', null);
      // Only JSON bodies: anything else is a 415. Fastify's own parser, with `__proto__` and
      // `constructor` keys left as plain keys: the strict body schema refuses them by name (422).
      api.removeAllContentTypeParsers();
      api.addContentTypeParser(
        'application/json',
        { parseAs: 'string' },
        api.getDefaultJsonParser('ignore', 'ignore'),
      );
      api.setSchemaErrorFormatter((issues, part) =>
        validationError(issues as unknown as ZodFastifySchemaValidationError[], part),
      );
      api.setErrorHandler((err: Error & { statusCode?: number; code?: string }, request, reply) => {
        if (err instanceof AppError && err.code !== 'INTERNAL') return sendRestError(reply, err);
        if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY')
          return reply.code(400).send({ message: 'Malformed JSON body' });
        if (err.statusCode === 413) return reply.code(413).send({ message: 'Request body larger than 1 MB' });
        if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
          return reply.code(415).send({ message: 'Send the body as application/json' });
        if (!(err instanceof AppError) && err.statusCode && err.statusCode < 500)
          return reply.code(err.statusCode).send({ message: err.message });
        deps.log.error(
          { err: err instanceof AppError ? (err.cause ?? err) : err, requestId: request.id },
          'fusion API failed',
        );
        return sendRestError(reply, new AppError('INTERNAL'));
      });
      api.setNotFoundHandler((request, reply) =>
        reply.code(404).send({ message: `No route ${request.method} ${request.url}` }),
      );
      await api.register(fastifySwagger, swaggerOptions);
      api.get('/openapi.json', { schema: { hide: true } }, () => api.swagger());
      await api.register(fusionRoutes, { serving });
    },
    { prefix: PREFIX },
  );
}
