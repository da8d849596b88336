import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRateLimiter } from './limiter.ts';
import { WindowCounter } from './window-counter.ts';

describe('in-process rate limiter', () => {
  it('admits `points` requests per window, counts refusals too, and opens a new window when it ends', async () => {
    let t = 1_000;
    const limiter = createRateLimiter({ redis: null, name: 't', points: 2, durationSeconds: 60, now: () => t });
    assert.deepEqual(limiter.tryConsume('a'), { limit: 2, allowed: true, remaining: 1, resetMs: 60_000 });
    t += 10_000;
    assert.deepEqual(await limiter.consume('a'), { limit: 2, allowed: true, remaining: 0, resetMs: 50_000 });
    assert.deepEqual(limiter.tryConsume('a'), { limit: 2, allowed: false, remaining: 0, resetMs: 50_000 });
    assert.deepEqual(await limiter.peek('a'), { limit: 2, allowed: false, remaining: 0, resetMs: 50_000 });
    // Another key has a budget of its own.
    assert.equal(limiter.tryConsume('b')?.allowed, true);
    t += 50_000;
    assert.deepEqual(await limiter.peek('a'), { limit: 2, allowed: true, remaining: 2, resetMs: 0 });
    assert.deepEqual(limiter.tryConsume('a'), { limit: 2, allowed: true, remaining: 1, resetMs: 60_000 });
  });

  it('drops windows that ended when swept', () => {
    const counter = new WindowCounter(5, 1_000);
    counter.consume('a', 0);
    counter.consume('b', 500);
    counter.sweep(1_000);
    assert.equal(counter.peek('a', 999), null);
    assert.deepEqual(counter.peek('b', 1_000), { count: 1, resetMs: 500 });
  });
});
