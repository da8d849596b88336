import type { Redis } from 'ioredis';
import type { ReplayCache } from './replay-cache.ts';

/** SET key NX PX ttl: atomic on one Redis, so exactly one of two racing claims gets 'OK'. */
export function createRedisReplayCache(redis: Redis, prefix: string): ReplayCache {
  return {
    kind: 'redis',
    async claim(key, ttlMs) {
      const reply = await redis.set(`${prefix}:usedsig:${key}`, '1', 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX');
      return reply === 'OK';
    },
  };
}
