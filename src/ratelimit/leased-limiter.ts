import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { createRateLimiter, type RateDecision, type RateLimiter } from './limiter.ts';

export interface LeasedRateLimiterOptions {
  /** Shared store; null counts in this process only (exact, and no network at all). */
  readonly redis: Redis | null;
  /** Namespace of the counters, e.g. `svc:inference`. */
  readonly name: string;
  readonly points: number;
  readonly durationSeconds: number;
  /** The most of a key's budget one take from Redis reserves; 1 = a Redis round trip per request. */
  readonly batch: number;
  /** How often unused reservations of idle keys go back to Redis; 0 = only when sync() is called. */
  readonly syncMs: number;
  /** A refusal is answered from memory this long before Redis is asked again. */
  readonly recheckMs?: number;
  readonly now?: () => number;
  /** A Redis failure (the request is then limited by this process alone). */
  readonly onStoreError?: (err: unknown) => void;
}

export interface LeasedRateLimiter extends RateLimiter {
  /** Gives the unused reservations of keys not used since the previous sync back to Redis. */
  sync(): Promise<void>;
  /** Stops the timer and gives every unused reservation back. */
  close(): Promise<void>;
}

/**
 * One take never reserves more than this share of what the window has left, so the budget
 * other instances hold unused shrinks with it: below 16 left, a take is a single request
 * and the limit's last requests are each counted in Redis before they are admitted.
 */
export const TAKE_SHARE = 8;

/**
 * Reserves up to ARGV[1] points of the window (at most 1/ARGV[4] of what it has left, at least
 * one while any is left). A window is a hash {n: points reserved, w: its id} that expires with
 * it; the id tells a give-back from an older window apart. Answers {granted, n, pttl, id}.
 */
const TAKE = `
local n = tonumber(redis.call('HGET', KEYS[1], 'n'))
local w = redis.call('HGET', KEYS[1], 'w')
local ttl = redis.call('PTTL', KEYS[1])
local fresh = false
if (not n) or (not w) or ttl <= 0 then
  n = 0
  w = ARGV[5]
  ttl = tonumber(ARGV[3])
  fresh = true
end
local left = tonumber(ARGV[2]) - n
local g = 0
if left > 0 then g = math.min(tonumber(ARGV[1]), math.max(1, math.floor(left / tonumber(ARGV[4])))) end
if g > 0 then
  if fresh then
    redis.call('DEL', KEYS[1])
    redis.call('HSET', KEYS[1], 'n', g, 'w', w)
    redis.call('PEXPIRE', KEYS[1], ttl)
  else
    redis.call('HINCRBY', KEYS[1], 'n', g)
  end
end
return {g, n + g, ttl, w}
`;

/** Returns ARGV[2] unused points to the window ARGV[1], if it is still the current one. */
const GIVE_BACK = `
if redis.call('HGET', KEYS[1], 'w') == ARGV[1] then
  local n = tonumber(redis.call('HGET', KEYS[1], 'n'))
  redis.call('HSET', KEYS[1], 'n', math.max(0, n - tonumber(ARGV[2])))
  return 1
end
return 0
`;

/** The window as it stands: {n, pttl, id}, n = 0 when there is none. */
const PEEK = `
local n = tonumber(redis.call('HGET', KEYS[1], 'n'))
local ttl = redis.call('PTTL', KEYS[1])
if (not n) or ttl <= 0 then return {0, 0, ''} end
return {n, ttl, redis.call('HGET', KEYS[1], 'w')}
`;

interface LeasedRedis {
  svcRateTake(key: string, want: number, limit: number, durationMs: number, share: number, newId: string): Promise<[number, number, number, string]>;
  svcRateGiveBack(key: string, windowId: string, points: number): Promise<number>;
  svcRatePeek(key: string): Promise<[number, number, string]>;
}

function withScripts(redis: Redis): Redis & LeasedRedis {
  // defineCommand sends the script by its hash (EVALSHA) and loads it once when missing.
  if (!('svcRateTake' in redis)) {
    redis.defineCommand('svcRateTake', { numberOfKeys: 1, lua: TAKE });
    redis.defineCommand('svcRateGiveBack', { numberOfKeys: 1, lua: GIVE_BACK });
    redis.defineCommand('svcRatePeek', { numberOfKeys: 1, lua: PEEK });
  }
  return redis as Redis & LeasedRedis;
}

/** What this instance holds of one key's current window. */
interface Lease {
  readonly windowId: string;
  /** Local time the window ends (measured from before the take was sent: never later than Redis's). */
  endAt: number;
  /** Reserved in Redis and not yet spent here. */
  left: number;
  /** The window's reserved total after this instance's last take (every instance's takes). */
  counted: number;
  /** Size of the last take: a full one means the window is far from its limit. */
  lastTake: number;
  /** Spent since the previous sync (an idle lease gives its points back). */
  used: boolean;
  /** Redis had nothing left: refusals are answered from memory until then. */
  refusedUntil: number;
}

/**
 * A fixed-window limit per key whose requests are admitted from memory: each instance reserves
 * small batches of a key's window in Redis (one atomic script) and spends them locally, taking
 * the next batch when half of a full one is spent. Nothing is admitted that Redis did not count
 * first, so N instances together never admit more than the limit per window; the price is that
 * points one instance holds unused are not available to the others until it spends them or
 * gives them back (after syncMs idle). docs/operations.md states the bounds.
 *
 * Without Redis it is the in-process counter. If Redis fails, the request is limited by an
 * in-process counter instead (per instance), as the shared limiter does.
 */
export function createLeasedRateLimiter(opts: LeasedRateLimiterOptions): LeasedRateLimiter {
  const memory = createRateLimiter({ redis: null, name: opts.name, points: opts.points, durationSeconds: opts.durationSeconds });
  if (!opts.redis) return { ...memory, sync: async () => {}, close: async () => {} };
  const redis = withScripts(opts.redis);
  const now = opts.now ?? Date.now;
  const durationMs = opts.durationSeconds * 1000;
  const recheckMs = opts.recheckMs ?? 1000;
  const prefix = `rlb:${opts.name}:`;
  // Names the windows this instance opens, so a give-back never lands in a later window.
  const instance = randomBytes(6).toString('base64url');
  let opened = 0;
  const leases = new Map<string, Lease>();
  /** One take in flight per key; concurrent requests wait for it together. */
  const taking = new Map<string, Promise<void>>();

  const live = (key: string, at: number): Lease | null => {
    const l = leases.get(key);
    if (!l) return null;
    if (l.endAt > at) return l;
    if (!taking.has(key)) leases.delete(key);
    return null;
  };

  const decision = (l: Lease, allowed: boolean, at: number): RateDecision => ({
    allowed,
    limit: opts.points,
    remaining: allowed ? Math.max(0, opts.points - l.counted + l.left) : 0,
    resetMs: Math.max(0, l.endAt - at),
  });

  const take = async (key: string): Promise<void> => {
    const sentAt = now();
    const [granted, counted, ttl, windowId] = await redis.svcRateTake(
      prefix + key, opts.batch, opts.points, durationMs, TAKE_SHARE, `${instance}.${++opened}`,
    );
    const endAt = sentAt + Number(ttl);
    let l = leases.get(key);
    if (!l || l.windowId !== windowId) {
      l = { windowId, endAt, left: 0, counted: 0, lastTake: 0, used: true, refusedUntil: 0 };
      leases.set(key, l);
    }
    l.endAt = Math.min(l.endAt, endAt);
    l.left += Number(granted);
    l.counted = Number(counted);
    l.lastTake = Number(granted);
    if (l.lastTake === 0) l.refusedUntil = Math.min(l.endAt, now() + recheckMs);
  };

  const takeOnce = (key: string): Promise<void> => {
    const inFlight = taking.get(key);
    if (inFlight) return inFlight;
    const p = take(key).finally(() => taking.delete(key));
    taking.set(key, p);
    return p;
  };

  const spend = (l: Lease, key: string, at: number): RateDecision => {
    l.left--;
    l.used = true;
    // Far from the limit (the last take was full), the next batch is fetched before this one
    // runs out, so a busy key never waits on Redis.
    if (opts.batch > 1 && l.lastTake === opts.batch && l.left <= opts.batch / 2 && !taking.has(key)) {
      takeOnce(key).catch((err: unknown) => opts.onStoreError?.(err));
    }
    return decision(l, true, at);
  };

  const sync = async (): Promise<void> => {
    const at = now();
    const back: Promise<unknown>[] = [];
    for (const [key, l] of leases) {
      if (taking.has(key)) continue;
      if (l.endAt <= at) {
        leases.delete(key);
      } else if (l.used) {
        l.used = false;
      } else if (l.left > 0) {
        const points = l.left;
        l.left = 0;
        l.counted -= points;
        back.push(redis.svcRateGiveBack(prefix + key, l.windowId, points).catch((err: unknown) => opts.onStoreError?.(err)));
      }
    }
    await Promise.all(back);
  };

  const timer = opts.syncMs > 0 ? setInterval(() => void sync(), opts.syncMs) : null;
  timer?.unref();

  return {
    limit: opts.points,
    tryConsume(key) {
      const at = now();
      const l = live(key, at);
      if (l && l.left > 0) return spend(l, key, at);
      if (l && l.refusedUntil > at) return decision(l, false, at);
      return null;
    },
    async consume(key) {
      for (;;) {
        const at = now();
        const l = live(key, at);
        if (l && l.left > 0) return spend(l, key, at);
        if (l && l.refusedUntil > at) return decision(l, false, at);
        try {
          await takeOnce(key);
        } catch (err) {
          opts.onStoreError?.(err);
          return memory.consume(key);
        }
        // Redis had nothing left. (Points taken but already spent by the requests that waited
        // alongside send this one round again for another take.)
        const after = live(key, now());
        if (after && after.left === 0 && after.lastTake === 0) return decision(after, false, now());
      }
    },
    async peek(key) {
      const at = now();
      const l = live(key, at);
      if (l) return decision(l, l.left > 0 || l.refusedUntil <= at, at);
      try {
        const [n, ttl] = await redis.svcRatePeek(prefix + key);
        const remaining = Math.max(0, opts.points - Number(n));
        return { allowed: remaining > 0, limit: opts.points, remaining, resetMs: Math.max(0, Number(ttl)) };
      } catch {
        // An unreachable store only costs the headers their accuracy, never the answer.
        return memory.peek(key);
      }
    },
    sync,
    async close() {
      if (timer) clearInterval(timer);
      await Promise.allSettled([...taking.values()]);
      // Every lease counts as idle now, so this pass gives all unused points back.
      for (const l of leases.values()) l.used = false;
      await sync();
    },
  };
}
