import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import type { AppDeps } from '../context/context.js';

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
  opts: { logger?: boolean } = {},
): FastifyInstance {
  const app = Fastify({
    logger:
      opts.logger === false
        ? false
        : {
            level: deps.config.logLevel,
            redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
          },
    bodyLimit: 1024 * 1024,
    trustProxy: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID_RE.test(given) ? given : randomUUID();
    },
  });
  app.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  return app;
}
