import type { FastifyReply } from 'fastify';
import type { RateDecision } from '../auth/rate-limit.js';
import type { AppError } from '../errors/catalogue.js';

/** The rate-limit headers every REST answer carries once the limiter has decided. */
export function rateHeaders(
  reply: FastifyReply,
  rate: Pick<RateDecision, 'limit' | 'remaining' | 'resetSeconds'>,
): void {
  void reply.header('x-ratelimit-limit', rate.limit);
  void reply.header('x-ratelimit-remaining', rate.remaining);
  void reply.header('x-ratelimit-reset', rate.resetSeconds);
}

/**
 * The one place the REST surfaces (the Fusion APIs, the operator's upload) map the error catalogue
 * to HTTP: bodies exactly as the spec's Errors table.
 */
export function sendRestError(reply: FastifyReply, err: AppError): FastifyReply {
  // The request's deadline may have answered it already (503).
  if (reply.sent) return reply;
  if (err.details.rate) rateHeaders(reply, err.details.rate);
  switch (err.code) {
    case 'SERVICE_UNAVAILABLE':
      return reply
        .code(503)
        .header('retry-after', String(err.details.retryAfterSeconds ?? 5))
        .send({ message: err.message });
    case 'RATE_LIMITED':
      return reply
        .code(429)
        .header('retry-after', String(err.details.retryAfterSeconds ?? 60))
        .send('');
    case 'PLAN_UPGRADE_REQUIRED':
      return reply.code(403).send({ message: err.message, scope: err.details.scope, upgrade_required: true });
    case 'BAD_USER_INPUT':
      return reply
        .code(422)
        .send({ message: err.message, errors: err.details.fields ?? { request: [err.message] } });
    case 'INTERNAL':
      return reply.code(500).send({ message: 'Internal server error' });
    case 'CREDENTIAL_MISSING':
    case 'CREDENTIAL_INVALID':
    case 'FORBIDDEN':
    case 'SCOPE_MISSING':
    case 'NOT_FOUND':
    case 'CONFLICT':
      return reply.code(err.httpStatus).send({ message: err.message });
  }
}
