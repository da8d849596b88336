import type { Redis } from 'ioredis';
import type { Clock } from '../../shared/clock.ts';
import type { Db } from '../../storage/database.ts';
import type { ReplayCache } from './replay-cache.ts';
import { createPostgresReplayCache } from './replay-cache.postgres.ts';
import { createRedisReplayCache } from './replay-cache.redis.ts';

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
