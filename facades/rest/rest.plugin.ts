import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import type { z } from 'zod';
import { createContext, type AppDeps, type RequestContext } from '../../src/context/context.js';
import type { FusionScope } from '../../src/entities/enums.js';
import { AppError } from '../../src/errors/catalogue.js';
import { sendJsonText } from '../../src/http/json-bytes.js';
import { rateHeaders, sendRestError } from '../../src/http/rest-errors.js';
import { loadOperation, runOperation, type FacadeOperation } from '../operation.js';
import { idFromText } from '../../src/limits.js';
import { buildOpenApi } from './openapi.js';
import { floorPlanMatchValidator } from './request-validation.js';

const MAX_BODY_BYTES = 1024 * 1024;

/**
 * A path segment as the Int the operation takes. Anything that is not one becomes 0, which the
 * resolver refuses with a 422 after its scope and plan checks, so the spec's order of checks holds.
 */
function pathId(segment: string): number {
  return idFromText(segment) ?? 0;
}

function validationError(error: z.ZodError): AppError {
  const fields: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const path = issue.path.map(String).join('.') || 'body';
    (fields[path] ??= []).push(issue.message);
  }
  return new AppError('BAD_USER_INPUT', 'The request body failed validation', { fields });
}

/**
 * The Fusion REST APIs under /api/v1: each route is a GraphQL operation on the one schema run
 * with the one context. Order of checks: credential → scope → plan → rate limit → validation.
 */
export async function registerRest(
  app: FastifyInstance,
  schema: GraphQLSchema,
  deps: AppDeps,
): Promise<void> {
  const dir = import.meta.dirname;
  const ops = {
    buildingLink: loadOperation(schema, dir, 'building-link.graphql'),
    floorPlanMatch: loadOperation(schema, dir, 'floorplan-match.graphql'),
  };
  const openapi = buildOpenApi();
  const floorPlanMatchRequest = floorPlanMatchValidator();

  async function run(
    request: FastifyRequest,
    reply: FastifyReply,
    scope: FusionScope,
    op: FacadeOperation,
    variables: (ctx: RequestContext) => Record<string, unknown>,
  ): Promise<FastifyReply> {
    let ctx: RequestContext;
    try {
      ctx = await createContext(
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
    } catch (err) {
      if (err instanceof AppError) return sendRestError(reply, err);
      throw err;
    }
    if (ctx.rate) rateHeaders(reply, ctx.rate);
    try {
      const data = await runOperation<{ result: unknown }>(op, variables(ctx), ctx);
      // The request's deadline may have answered it already (503): an answer nobody will read is
      // not serialized, when the server is busiest.
      if (reply.sent) return reply;
      return sendJsonText(reply, JSON.stringify(data.result));
    } catch (err) {
      if (err instanceof AppError && err.code !== 'INTERNAL') return sendRestError(reply, err);
      deps.log.error(
        { err: err instanceof AppError ? (err.cause ?? err) : err, requestId: request.id },
        'fusion API failed',
      );
      return sendRestError(reply, new AppError('INTERNAL'));
    }
  }

  await app.register(
    (api, _opts, done) => {
      api.removeAllContentTypeParsers();
      api.addContentTypeParser(
        ['application/json'],
        { parseAs: 'string', bodyLimit: MAX_BODY_BYTES },
        (_req, body, next) => {
          try {
            next(null, JSON.parse(body as string));
          } catch {
            next(Object.assign(new Error('Malformed JSON body'), { statusCode: 400 }));
          }
        },
      );
      api.setErrorHandler((err: { statusCode?: number; message: string; code?: string }, _req, reply) => {
        if (err.statusCode === 413) return reply.code(413).send({ message: 'Request body larger than 1 MB' });
        if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
          return reply.code(415).send({ message: 'Send the body as application/json' });
        }
        if (err.statusCode && err.statusCode < 500)
          return reply.code(err.statusCode).send({ message: err.message });
        deps.log.error({ err }, 'fusion API transport error');
        return reply.code(500).send({ message: 'Internal server error' });
      });
      api.setNotFoundHandler((request, reply) =>
        reply.code(404).send({ message: `No route ${request.method} ${request.url}` }),
      );

      api.get('/openapi.json', () => openapi);
      // Answers are written with JSON.stringify, not a serializer compiled from the response schema
      // (fast-json-stringify): for Floor Plan Match's ~10,000 fields it wrote the answer faster
      // but as a string of ~10,000 pieces, which then had to be joined to be sent, and cost more
      // CPU a request in all (the REST section of `npm run bench`). The GraphQL document already gives the documented shape,
      // and the contract test checks answers against the same schema.
      api.get<{ Params: { id: string } }>('/building-links/:id', (request, reply) =>
        run(request, reply, 'building-links', ops.buildingLink, () => ({ id: pathId(request.params.id) })),
      );
      api.post('/floorplan-match', (request, reply) =>
        run(request, reply, 'floorplan-match', ops.floorPlanMatch, () => {
          const parsed = floorPlanMatchRequest(request.body);
          if (!parsed.success) throw validationError(parsed.error);
          return { listings: parsed.data.listings };
        }),
      );
      for (const [url, allow] of [
        ['/building-links/:id', 'GET'],
        ['/floorplan-match', 'POST'],
      ] as const) {
        api.route({
          method: ['PUT', 'PATCH', 'DELETE', ...(allow === 'GET' ? (['POST'] as const) : (['GET'] as const))],
          url,
          handler: (_req, reply) =>
            reply
              .code(405)
              .header('allow', allow)
              .send({ message: `Use ${allow}` }),
        });
      }
      done();
    },
    { prefix: '/api/v1' },
  );
}
