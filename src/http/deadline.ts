import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendUnavailable } from './unavailable.js';
import { refusals } from '../metrics/metrics.js';
import { runWithWorkSignal } from '../db/cancel.js';
import { ClientGone, DatabaseUnavailable, DeadlineExceeded } from '../errors/aborted.js';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Aborted when the request's deadline passes or its client goes away: work for it should stop.
     * The reason is a DeadlineExceeded or a ClientGone error. (Fastify's own `request.signal`
     * cannot serve: on Node 22 it aborts as soon as a POST body has been read.)
     */
    workSignal: AbortSignal;
  }
  interface FastifyInstance {
    /**
     * Answers every request still running (but /healthz, /readyz and /metrics) with 503 and
     * `message` now, and aborts its work signal: a database outage was declared, and waiting for
     * it would only hold them to their deadline.
     */
    refuseInFlight(message: string): void;
  }
}

/** Answered by their own handlers whatever the database does. */
const NEVER_REFUSED = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Every request on every transport gets one deadline and one AbortSignal (`request.workSignal`). When
 * the deadline passes first, the client gets 503 with Retry-After at once; when the client
 * disconnects, nobody is left to answer. Either way the signal aborts, so the one context, the
 * batch loaders and the database layer can stop the request's remaining work.
 */
export function registerDeadline(
  app: FastifyInstance,
  opts: { timeoutMs: number; retryAfterSeconds: number },
): void {
  app.decorateRequest('workSignal', null as unknown as AbortSignal);
  const running = new Map<FastifyRequest, { reply: FastifyReply; controller: AbortController }>();
  app.decorate('refuseInFlight', (message: string) => {
    for (const [request, { reply, controller }] of running) {
      if (NEVER_REFUSED.has(request.url.split('?', 1)[0])) continue;
      controller.abort(new DatabaseUnavailable());
      if (reply.sent || reply.raw.headersSent) continue;
      refusals.inc({ reason: 'database' });
      sendUnavailable(request, reply, opts.retryAfterSeconds, message);
    }
  });
  app.addHook('onRequest', (request, reply, done) => {
    const controller = new AbortController();
    request.workSignal = controller.signal;
    running.set(request, { reply, controller });
    const timer = setTimeout(() => {
      controller.abort(new DeadlineExceeded(opts.timeoutMs));
      if (!reply.sent && !reply.raw.headersSent) {
        request.log.warn({ timeoutMs: opts.timeoutMs }, 'request deadline exceeded');
        refusals.inc({ reason: 'deadline' });
        sendUnavailable(
          request,
          reply,
          opts.retryAfterSeconds,
          `The request did not finish within ${opts.timeoutMs} ms: retry in ${opts.retryAfterSeconds} seconds`,
        );
      }
    }, opts.timeoutMs);
    // 'close' on the response comes after it finished or when the connection dropped before that.
    reply.raw.once('close', () => {
      clearTimeout(timer);
      running.delete(request);
      if (!reply.raw.writableFinished && !controller.signal.aborted) controller.abort(new ClientGone());
    });
    // The database layer reads the signal from here: a query running when it aborts is cancelled.
    runWithWorkSignal(controller.signal, done);
  });
  // Again once the body is read: body parsing may resume in another async context.
  app.addHook('preHandler', (request, _reply, done) => {
    runWithWorkSignal(request.workSignal, done);
  });
}
