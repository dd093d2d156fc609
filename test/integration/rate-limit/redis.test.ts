import { Redis } from 'ioredis';
import { describeStoreContract } from './store-contract.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

async function reachable(url: string): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

const redisUp = await reachable(REDIS_URL);
// CI provides Redis, so there an unreachable server is a failure, not a reason to skip.
if (!redisUp && process.env.CI) throw new Error(`Redis is not reachable at ${REDIS_URL} in CI`);
if (!redisUp) {
  // Skipped only because no Redis server answered PING at REDIS_URL on this machine.
  console.warn(`redis store tests skipped: no Redis answered PING at ${REDIS_URL}`);
}

(redisUp ? describe : describe.skip)('redis store', () => {
  // Each limiter opens its own connection, so the sibling is a second process's view of the same counters.
  describeStoreContract('Redis', () => ({
    config: { kind: 'redis', url: REDIS_URL },
    sibling: { kind: 'redis', url: REDIS_URL },
  }));
});
