import { publicUrlProblem } from '../net/public-address.js';

/**
 * Where a webhook may be sent: HTTPS to a public address (src/net/public-address.ts).
 * `allowLoopback` (tests and development) also allows http and the loopback addresses.
 */
export function webhookUrlProblem(raw: string, allowLoopback: boolean): string | null {
  return publicUrlProblem(raw, {
    allowLoopback,
    protocols: allowLoopback ? ['https:', 'http:'] : ['https:'],
    maxLength: 2048,
  });
}
