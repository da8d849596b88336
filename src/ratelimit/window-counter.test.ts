import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { createLeasedRateLimiter } from './leased-limiter.ts';
import { createRateLimiter } from './limiter.ts';
import { WindowCounter } from './window-counter.ts';

describe('WindowCounter sweeps', () => {
  it('drops the windows that ended from consume(), once the clock passed the next sweep time, without a timer', () => {
    const setInterval = mock.method(globalThis, 'setInterval');
    const setTimeout = mock.method(globalThis, 'setTimeout');
    try {
      const counter = new WindowCounter(5, 1_000, 10_000);
      counter.consume('a', 0);
      counter.consume('b', 500);
      counter.consume('c', 9_500);
      assert.equal(counter.size, 3);
      // 'a' and 'b' ended long ago, but the next sweep is not due before 10 000.
      counter.consume('c', 9_999);
      assert.equal(counter.size, 3);
      // Due: the windows that ended go ('c', opened at 9 500, is still open).
      counter.consume('d', 10_000);
      assert.equal(counter.size, 2);
      assert.equal(counter.peek('a', 10_000), null);
      assert.deepEqual(counter.peek('c', 10_000), { count: 2, resetMs: 500 });
      // The next sweep is one period later: 'c' ended at 10 500 and stays until then.
      counter.consume('d', 19_999);
      assert.equal(counter.size, 2);
      counter.consume('e', 20_000);
      assert.equal(counter.size, 2, "'c' swept; 'd' (opened again at 19 999) and 'e' are open");
      assert.equal(setInterval.mock.callCount() + setTimeout.mock.callCount(), 0, 'no timer');
    } finally {
      mock.restoreAll();
    }
  });

  it('an in-process limiter, alone or as the fallback of a leased one, starts no timer', async () => {
    const setInterval = mock.method(globalThis, 'setInterval');
    const setTimeout = mock.method(globalThis, 'setTimeout');
    try {
      for (let i = 0; i < 10; i++) {
        const limiter = createRateLimiter({ redis: null, name: `t${i}`, points: 2, durationSeconds: 60 });
        assert.equal(limiter.tryConsume('a')?.allowed, true);
        assert.equal((await limiter.consume('a')).allowed, true);
        const leased = createLeasedRateLimiter({ redis: null, name: `l${i}`, points: 2, durationSeconds: 60, batch: 10, syncMs: 0 });
        assert.equal(leased.tryConsume('a')?.allowed, true);
        await leased.close();
      }
      assert.equal(setInterval.mock.callCount() + setTimeout.mock.callCount(), 0, 'no timer');
    } finally {
      mock.restoreAll();
    }
  });
});
