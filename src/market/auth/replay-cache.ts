import type { Redis } from 'ioredis';
import type { Clock } from '../../shared/clock.ts';
import type { Db } from '../../storage/database.ts';
import { createPostgresReplayCache } from './replay-cache.postgres.ts';
import { createRedisReplayCache } from './replay-cache.redis.ts';

/**
 * Remembers which signatures were already accepted, for every instance at once. A signature is
 * accepted only in the 30-second window around its timestamp, so remembering it a little longer
 * than the whole window (60 s) is enough.
 */
export interface ReplayCache {
  readonly kind: 'redis' | 'postgres';
  /** True the first time `key` is claimed within `ttlMs`; false when it was already used. */
  claim(key: string, ttlMs: number): Promise<boolean>;
}

export interface ReplayCacheOptions {
  readonly db: Db;
  readonly redis: Redis | null;
  readonly clock: Clock;
  /** Redis key namespace (config.redisPrefix), so deployments sharing a Redis stay apart. */
  readonly redisPrefix?: string;
}

/** Redis when the app has a Redis client, else the database: both are shared by every instance. */
export function createReplayCache(opts: ReplayCacheOptions): ReplayCache {
  return opts.redis
    ? createRedisReplayCache(opts.redis, opts.redisPrefix ?? 'svc')
    : createPostgresReplayCache(opts.db, opts.clock);
}
