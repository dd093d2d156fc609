/**
 * A worker that claims webhook deliveries and sends them, alone in a process, so a test can kill
 * it with SIGKILL mid-delivery. Arguments: a PostgreSQL URL and the delivery timeout in ms.
 */
import pg from 'pg';
import { WebhookDeliverer } from '../../src/webhooks/delivery.js';

const [url, timeoutMs] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: url, max: 2 });
const quiet = { warn: () => undefined, info: () => undefined, error: () => undefined };
const deliverer = new WebhookDeliverer(
  pool,
  { allowLoopback: true, timeoutMs: Number(timeoutMs), retrySchedule: [0.1], pollMs: 1000 },
  quiet as never,
);
process.send?.('ready');
await deliverer.runOnce();
await pool.end();
