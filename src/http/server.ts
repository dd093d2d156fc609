import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { AppDeps } from '../context/context.js';
import { registerDeadline } from './deadline.js';
import { redactUrl, refuseQueryCredentials } from './query-credentials.js';

const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

/** Headers whose values are secrets: never logged. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.authorization',
];

export function buildHttpServer(
  deps: Pick<AppDeps, 'config'>,
  opts: { logger?: boolean; logStream?: NodeJS.WritableStream } = {},
): FastifyInstance {
  const { config } = deps;
  const app = Fastify({
    logger:
      opts.logger === false
        ? false
        : {
            level: config.logLevel,
            ...(opts.logStream ? { stream: opts.logStream } : {}),
            redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
            serializers: {
              req: (req: FastifyRequest) => ({
                method: req.method,
                url: redactUrl(req.url),
                host: req.host,
                remoteAddress: req.ip,
                remotePort: req.socket?.remotePort,
              }),
            },
          },
    bodyLimit: 1024 * 1024,
    // A URL the router cannot take (a "%" not starting a %XX escape of UTF-8, a path segment over
    // 100 characters) is answered in the shape of the entry point it was meant for, not Fastify's.
    frameworkErrors: (err, request, reply) => {
      const status = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : 400;
      const message =
        err.code === 'FST_ERR_BAD_URL'
          ? 'The URL is not valid: a "%" must start a %XX escape of UTF-8 text'
          : err.code === 'FST_ERR_MAX_PARAM_LENGTH'
            ? 'A segment of the URL path is longer than 100 characters'
            : 'The request cannot be routed';
      void (reply as FastifyReply).code(status).send(urlAnswer(request.url, message));
    },
    // A "__proto__" or "constructor.prototype" key in a JSON body is dropped, not refused: it never
    // means anything to this service, and refusing it answered as if the body were not JSON.
    onProtoPoisoning: 'remove',
    onConstructorPoisoning: 'remove',
    // Fastify takes a hop count or addresses; the TRUST_PROXY type is the same set of values.
    trustProxy: config.trustProxy as boolean | string[],
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID_RE.test(given) ? given : randomUUID();
    },
  });
  app.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  refuseQueryCredentials(app);
  registerDeadline(app, {
    timeoutMs: config.overload.requestTimeoutMs,
    retryAfterSeconds: config.overload.retryAfterSeconds,
  });
  return app;
}

/** The answer to a URL the router cannot take, in the shape of the entry point it was meant for. */
function urlAnswer(url: string, message: string): unknown {
  if (url.startsWith('/mcp')) return { jsonrpc: '2.0', id: null, error: { code: -32600, message } };
  if (url.startsWith('/graphql')) return { errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] };
  return { message };
}
