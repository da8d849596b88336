import type { Redis } from 'ioredis';
import type { BreakerStore } from './deployment-health.ts';

/**
 * Opened breakers shared through Redis: `<prefix>:breaker:<provider/model>` holds until when it is
 * open (epoch ms) and expires with the cooldown, so a key outlives no breaker.
 */
export function createRedisBreakerStore(redis: Redis, prefix: string): BreakerStore {
  const key = (k: string) => `${prefix}:breaker:${k}`;
  return {
    async open(k, until, ttlMs) {
      await redis.set(key(k), String(until), 'PX', Math.max(1, ttlMs));
    },
    async close(k) {
      await redis.del(key(k));
    },
    async read(keys) {
      if (keys.length === 0) return [];
      const values = await redis.mget(...keys.map(key));
      return values.map((v) => (v === null || !/^\d+$/.test(v) ? null : Number(v)));
    },
  };
}
