import fastifySwagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox';
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
  ChangesQuerySchema,
  ChangesResponseSchema,
  FloorPlanMatchRequestSchema,
  FloorPlanMatchResponseSchema,
  MessageSchema,
} from './rest.schemas.js';
import { validationError, validatorCompiler } from './rest.validation.js';

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
    wireNames?: Record<string, string>,
  ): Promise<unknown>;
  buildingLink: FacadeOperation;
  changes: FacadeOperation;
  floorPlanMatch: FacadeOperation;
}

/**
 * A 422 from the operation names its GraphQL arguments (`after`, `types.1`); on the wire they are
 * the query parameters the caller sent (`cursor`, `types.1`).
 */
function renameFields(err: unknown, wireNames: Record<string, string>): unknown {
  if (!(err instanceof AppError) || err.code !== 'BAD_USER_INPUT' || !err.details.fields) return err;
  const fields: Record<string, string[]> = {};
  for (const [path, messages] of Object.entries(err.details.fields)) {
    const [head, ...rest] = path.split('.');
    fields[[wireNames[head] ?? head, ...rest].join('.')] = messages;
  }
  const [first] = Object.entries(fields);
  const message = first ? `${first[0]}: ${first[1][0]}` : 'The request query failed validation';
  return new AppError('BAD_USER_INPUT', message, { ...err.details, fields });
}

/** The Fusion API routes with their schemas (registered where @fastify/swagger sees them). */
const fusionRoutes: FastifyPluginCallbackTypebox<{ serving: Serving | null }> = (api, { serving }, done) => {
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
      ? (request, reply) =>
          serving.run(serving.buildingLink, { id: Number(request.params.id) }, request, reply)
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
  api.get('/changes', {
    schema: {
      operationId: 'listChanges',
      summary: `Change feed: what changed in projects, buildings, floor plans and documents, oldest first, after a cursor (scope changes, ${RATE_POLICIES.changes.points} requests per minute per key)`,
      description:
        'The same feed as the GraphQL field `changes`, with the same rule: the API key needs the `changes` scope and the team a Pro or Elite plan in good standing, checked on every request. Start without a cursor, keep `meta.next_cursor` and pass it as `cursor` next time: each event once, in the order the changes committed. While `meta.has_more` is true, more events are ready now.',
      querystring: ChangesQuerySchema,
      response: answers('changes', {
        200: ['Events after the cursor, oldest first', ChangesResponseSchema],
        422: validationFailed('A cursor the feed did not return, an unknown type or a limit out of range'),
      }),
    },
    preValidation: serving?.context('changes') ?? [],
    handler: serving
      ? (request, reply) => {
          const q = request.query;
          return serving.run(
            serving.changes,
            {
              after: q.cursor ?? null,
              first: q.limit === undefined ? null : Number(q.limit),
              types: q.types === undefined ? null : q.types.split(',').map((t) => t.trim()),
              projectId: q.project_id === undefined ? null : Number(q.project_id),
            },
            request,
            reply,
            { after: 'cursor', first: 'limit', types: 'types', projectId: 'project_id' },
          );
        }
      : notServed,
  });
  for (const [url, allow] of [
    ['/building-links/:id', 'GET'],
    ['/changes', 'GET'],
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
    changes: loadOperation(schema, dir, 'changes.graphql'),
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
    run: async (op, variables, request, reply, wireNames) => {
      let data: { result: unknown };
      try {
        data = await runOperation<{ result: unknown }>(op, variables, request.fusionContext!);
      } catch (err) {
        throw wireNames ? renameFields(err, wireNames) : err;
      }
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
      api.setSchemaErrorFormatter(validationError);
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
