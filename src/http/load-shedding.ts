import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';
import type { OverloadConfig } from '../config.js';
import { sendUnavailable } from './unavailable.js';
import { refusals } from '../metrics/metrics.js';

/** Liveness must say "alive" while the node sheds load, or an orchestrator would restart a busy node. */
/** Often enough that a stall is seen within a fraction of a second. */
const SAMPLE_INTERVAL_MS = 250;

const NEVER_SHED = new Set(['/healthz', '/metrics']);

/**
 * Sheds load before any work starts (an onRequest hook, ahead of body parsing and the context):
 * while the event loop lags or memory is over its threshold, new requests get 503 with
 * Retry-After in their transport's format. Requests already running are left to finish.
 */
export async function registerLoadShedding(app: FastifyInstance, overload: OverloadConfig): Promise<void> {
  // Start-up (migrations, schema build) blocks the loop for seconds; that stall says nothing about
  // load, so shedding is armed only once the samples taken after start-up have replaced it.
  let armed = false;
  app.addHook('onReady', (done) => {
    setTimeout(() => {
      armed = true;
    }, 2 * SAMPLE_INTERVAL_MS).unref();
    done();
  });
  await app.register(underPressure, {
    maxEventLoopDelay: overload.maxEventLoopDelayMs,
    maxHeapUsedBytes: overload.maxHeapBytes,
    maxRssBytes: overload.maxRssBytes,
    retryAfter: overload.retryAfterSeconds,
    sampleInterval: SAMPLE_INTERVAL_MS,
    pressureHandler: (request, reply, type, value) => {
      if (!armed || NEVER_SHED.has(request.url.split('?', 1)[0])) return undefined;
      request.log.warn({ pressure: type, value }, 'shedding load');
      refusals.inc({ reason: 'overload' });
      sendUnavailable(
        request,
        reply,
        overload.retryAfterSeconds,
        `The server is overloaded: retry in ${overload.retryAfterSeconds} seconds`,
      );
      // Nothing returned: the plugin then continues the hook chain, which stops at the sent reply.
      return undefined;
    },
  });
}
