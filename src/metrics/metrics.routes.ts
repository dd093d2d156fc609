import type { FastifyInstance } from 'fastify';
import { safeEqual } from '../auth/secret.js';
import { httpDuration, httpRequests, registry } from './metrics.js';

/**
 * GET /metrics in the Prometheus text format, for a scraper holding METRICS_TOKEN (or the
 * operator): `Authorization: Bearer <token>`; anyone else gets 401. And the request figures: every
 * answered request by its route pattern (never the raw URL: ids would make a series each),
 * method and status, with its latency.
 */
export function registerMetrics(
  app: FastifyInstance,
  tokens: { metricsToken: string | null; adminToken: string | null },
): void {
  app.addHook('onResponse', (request, reply, done) => {
    const labels = {
      route: request.routeOptions.url ?? 'unmatched',
      method: request.method,
      status: reply.statusCode,
    };
    httpRequests.inc(labels);
    httpDuration.observe(labels, reply.elapsedTime / 1000);
    done();
  });
  const accepted = [tokens.metricsToken, tokens.adminToken].filter((t): t is string => !!t);
  app.get('/metrics', async (request, reply) => {
    const header = request.headers.authorization ?? '';
    const token = /^Bearer (.+)$/i.exec(header)?.[1] ?? '';
    if (!token || !accepted.some((t) => safeEqual(t, token))) {
      return reply.code(401).header('www-authenticate', 'Bearer').send({
        message: 'Send Authorization: Bearer <METRICS_TOKEN> (or the operator token) to read /metrics',
      });
    }
    return reply.type(registry.contentType).send(await registry.metrics());
  });
}
