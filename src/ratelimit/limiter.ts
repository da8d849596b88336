import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

export interface RateDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /** Milliseconds until the window frees a request. */
  readonly resetMs: number;
}

export interface RateLimiter {
  readonly limit: number;
  consume(key: string): Promise<RateDecision>;
  /** The key's budget without spending from it (for answers that do not count). */
  peek(key: string): Promise<RateDecision>;
}

export interface RateLimiterOptions {
  /** Shared store; null keeps counters in this process. */
  readonly redis: Redis | null;
  /** Namespace of the counters, e.g. `svc:market`. */
  readonly name: string;
  readonly points: number;
  readonly durationSeconds: number;
}

/**
 * A fixed-window counter per key. On Redis every instance shares the counters; if Redis stops
 * answering, an in-process limiter takes over so requests are still limited (per instance).
 */
export function createRateLimiter(opts: RateLimiterOptions): RateLimiter {
  const base = { keyPrefix: `rl:${opts.name}`, points: opts.points, duration: opts.durationSeconds };
  const memory = new RateLimiterMemory(base);
  const limiter = opts.redis
    ? new RateLimiterRedis({ ...base, storeClient: opts.redis, useRedisPackage: false, insuranceLimiter: memory })
    : memory;

  const decision = (res: RateLimiterRes, allowed: boolean): RateDecision => ({
    allowed,
    limit: opts.points,
    remaining: Math.max(0, res.remainingPoints),
    resetMs: Math.max(0, res.msBeforeNext),
  });

  return {
    limit: opts.points,
    async consume(key) {
      try {
        return decision(await limiter.consume(key, 1), true);
      } catch (e) {
        if (e instanceof RateLimiterRes) return decision(e, false);
        throw e;
      }
    },
    async peek(key) {
      let res: RateLimiterRes | null = null;
      try {
        res = await limiter.get(key);
      } catch {
        // An unreachable store only costs the headers their accuracy, never the answer.
      }
      if (!res) return { allowed: true, limit: opts.points, remaining: opts.points, resetMs: 0 };
      return decision(res, res.remainingPoints > 0);
    },
  };
}
