import { ApolloServer, HeaderMap, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import fastifyApollo, { fastifyApolloDrainPlugin } from '@as-integrations/fastify';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { GraphQLError, getVariableValues, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import { createContext, type AppDeps, type RequestContext } from '../context/context.js';
import { AppError } from '../errors/catalogue.js';
import { safeEqual } from '../auth/secret.js';
import {
  assertComplexity,
  depthLimit,
  operationComplexity,
  selectsIntrospection,
} from '../graphql/limits.js';
import { RequestEnded } from '../errors/aborted.js';
import { unavailableError } from '../db/availability.js';
import { storableTextLiterals, UNSTORABLE_TEXT_RULE, unstorableTextAt } from '../errors/text.js';

/** AppError → GraphQL error with the catalogue's code; the HTTP status rides along for context errors. */
export function toGraphQLError(err: AppError): GraphQLError {
  return new GraphQLError(err.message, {
    extensions: {
      code: err.graphqlCode,
      appCode: err.code,
      ...(err.details.fields ? { fields: err.details.fields } : {}),
      ...(err.details.scope ? { scope: err.details.scope } : {}),
      ...(err.details.retryAfterSeconds !== undefined
        ? { retryAfterSeconds: err.details.retryAfterSeconds }
        : {}),
      http: {
        status: err.code === 'BAD_USER_INPUT' || err.code === 'NOT_FOUND' ? 200 : err.httpStatus,
        ...(err.code === 'SERVICE_UNAVAILABLE'
          ? { headers: new HeaderMap([['retry-after', String(err.details.retryAfterSeconds ?? 5)]]) }
          : {}),
      },
    },
  });
}

/** One place that turns resolver errors into what clients see; unknown errors are masked and logged. */
export function formatGraphQLError(deps: AppDeps) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = error instanceof GraphQLError ? error.originalError : error;
    if (original instanceof AppError) {
      const e = toGraphQLError(original);
      const { http: _http, ...extensions } = e.extensions;
      return { ...formatted, message: e.message, extensions };
    }
    const code = formatted.extensions?.code;
    // A literal of the wrong type or enum value is the caller's bad input, like a bad variable.
    if (
      code === 'GRAPHQL_VALIDATION_FAILED' &&
      /cannot represent|Expected value of type|does not exist in "\w+" enum/.test(formatted.message)
    ) {
      return { ...formatted, extensions: { ...formatted.extensions, code: 'BAD_USER_INPUT' } };
    }
    // The request's deadline passed or its client left: the HTTP layer has answered (or nobody listens).
    if (original instanceof RequestEnded) {
      return { message: original.message, path: formatted.path, extensions: { code: 'SERVICE_UNAVAILABLE' } };
    }
    // The database cannot answer now: a retryable 503 (unavailablePlugin sets the status), not a 500.
    const unavailable = unavailableError(original, deps.config.overload.retryAfterSeconds);
    if (unavailable) {
      return {
        message: unavailable.message,
        path: formatted.path,
        extensions: { code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: unavailable.details.retryAfterSeconds },
      };
    }
    if (
      original &&
      !(original instanceof GraphQLError) &&
      (code === undefined || code === 'INTERNAL_SERVER_ERROR')
    ) {
      deps.log.error({ err: original }, 'unhandled resolver error');
      return {
        message: 'Internal server error',
        path: formatted.path,
        extensions: { code: 'INTERNAL_SERVER_ERROR' },
      };
    }
    return formatted;
  };
}

/** A response carrying SERVICE_UNAVAILABLE (the database could not answer) is HTTP 503 with Retry-After. */
function unavailablePlugin(retryAfterSeconds: number): ApolloServerPlugin<RequestContext> {
  return {
    requestDidStart: () =>
      Promise.resolve({
        willSendResponse: ({ response }) => {
          if (response.body.kind !== 'single') return Promise.resolve();
          const errors = response.body.singleResult.errors ?? [];
          if (errors.some((e) => e.extensions?.code === 'SERVICE_UNAVAILABLE')) {
            response.http.status = 503;
            response.http.headers.set('retry-after', String(retryAfterSeconds));
          }
          return Promise.resolve();
        },
      }),
  };
}

function complexityPlugin(schema: GraphQLSchema): ApolloServerPlugin<RequestContext> {
  return {
    requestDidStart: () =>
      Promise.resolve({
        didResolveOperation: ({ document, request, operation, operationName }) => {
          // Text PostgreSQL cannot store is refused before any resolver reads it.
          const unstorable = unstorableTextAt(request.variables ?? {});
          if (unstorable !== null) {
            throw new GraphQLError(`Variable "$${unstorable}": ${UNSTORABLE_TEXT_RULE}`, {
              extensions: {
                code: 'BAD_USER_INPUT',
                fields: { [unstorable]: [UNSTORABLE_TEXT_RULE] },
                http: { status: 400 },
              },
            });
          }
          // Variables that do not coerce are the caller's bad input: execution reports them as a 400
          // with BAD_USER_INPUT; estimating the cost first would turn them into a 500.
          const coerced = getVariableValues(
            schema,
            operation?.variableDefinitions ?? [],
            request.variables ?? {},
          );
          if (coerced.errors) return Promise.resolve();
          assertComplexity(operationComplexity(schema, document, request.variables ?? {}, operationName));
          return Promise.resolve();
        },
      }),
  };
}

/**
 * Federation traces (`ftv1`: every resolver's timing and path, errors included) are for the gateway
 * and the operator: a request asking for one gets it only from the operator or with the gateway's
 * `X-Federation-Trace-Token` (FEDERATION_TRACE_TOKEN). Apollo's subgraph trace plugin runs after
 * this one and leaves a request alone once `captureTraces` is false.
 */
function federationTraceGuardPlugin(config: AppDeps['config']): ApolloServerPlugin<RequestContext> {
  return {
    requestDidStart: ({ request, contextValue, metrics }) => {
      if (request.http?.headers.get('apollo-federation-include-trace') !== 'ftv1') return Promise.resolve();
      const presented = request.http.headers.get('x-federation-trace-token') ?? '';
      const gateway =
        config.federationTraceToken !== null &&
        presented !== '' &&
        safeEqual(config.federationTraceToken, presented);
      if (!gateway && !contextValue.viewer?.isOperator) metrics.captureTraces = false;
      return Promise.resolve();
    },
  };
}

/**
 * Introspection answers the whole schema; outside development only signed-in callers get it
 * (everyone else reads the committed SDL, schema/subgraph.graphql). `__typename` stays open.
 */
function introspectionGuardPlugin(config: AppDeps['config']): ApolloServerPlugin<RequestContext> {
  return {
    requestDidStart: () =>
      Promise.resolve({
        didResolveOperation: ({ operation, document, contextValue }) => {
          if (config.nodeEnv === 'development' || contextValue.viewer) return Promise.resolve();
          if (operation && selectsIntrospection(operation.selectionSet, document)) {
            throw new GraphQLError(
              'Introspection needs a signed-in caller: send Authorization: Bearer <token>, or read the published schema (schema/subgraph.graphql)',
              { extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } } },
            );
          }
          return Promise.resolve();
        },
      }),
  };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export async function registerGraphQL(
  app: FastifyInstance,
  schema: GraphQLSchema,
  deps: AppDeps,
): Promise<void> {
  const apollo = new ApolloServer<RequestContext>({
    schema,
    logger: deps.log,
    validationRules: [depthLimit(), storableTextLiterals],
    formatError: formatGraphQLError(deps),
    introspection: true,
    includeStacktraceInErrorResponses: false,
    plugins: [
      fastifyApolloDrainPlugin(app),
      introspectionGuardPlugin(deps.config),
      complexityPlugin(schema),
      federationTraceGuardPlugin(deps.config),
      unavailablePlugin(deps.config.overload.retryAfterSeconds),
      deps.config.nodeEnv === 'production'
        ? ApolloServerPluginLandingPageDisabled()
        : ApolloServerPluginLandingPageLocalDefault({ embed: true }),
    ],
  });
  await apollo.start();
  // In a scope of its own, so the body-size answer below is GraphQL's alone.
  await app.register(async (scope) => {
    scope.setErrorHandler((err: FastifyError, _request, reply) => {
      if (err.statusCode === 413) return reply.code(413).send({ errors: [BODY_TOO_LARGE] });
      // A body that is not JSON, in GraphQL's own error shape.
      if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
        return reply.code(400).send({
          errors: [{ message: 'The request body is not valid JSON', extensions: { code: 'BAD_REQUEST' } }],
        });
      }
      throw err;
    });
    await registerApollo(scope, apollo, deps);
  });
}

/** The uploadDocument mutation's real limit is the 1 MB body: a clear answer instead of a bare 413. */
const BODY_TOO_LARGE = {
  message:
    'Request body larger than 1 MB. uploadDocument takes PDFs up to ~750 kB (base64 in JSON); upload larger PDFs, up to MAX_UPLOAD_BYTES, as the raw body of PUT /admin/projects/{projectId}/documents',
  extensions: { code: 'PAYLOAD_TOO_LARGE', maxBodyBytes: 1024 * 1024 },
};

async function registerApollo(
  app: FastifyInstance,
  apollo: ApolloServer<RequestContext>,
  deps: AppDeps,
): Promise<void> {
  await app.register(fastifyApollo(apollo), {
    path: '/graphql',
    context: async (request: FastifyRequest) => {
      try {
        return await createContext(
          {
            transport: 'graphql',
            authorization: request.headers.authorization,
            ip: request.ip,
            requestId: request.id,
            allowAnonymous: true,
            session: deps.auth.sessionCookie(request),
            teamId: headerValue(request.headers['x-team-id']),
            signal: request.workSignal,
          },
          deps,
        );
      } catch (err) {
        if (err instanceof AppError) throw toGraphQLError(err);
        throw err;
      }
    },
  });
}
