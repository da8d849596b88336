import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { createRedisBreakerStore } from './redis-breaker-store.ts';

describe('breakers shared through Redis', { skip: process.env.REDIS_URL ? false : 'needs REDIS_URL' }, () => {
  it('writes until when a breaker is open, reads it back, clears it, and lets it expire with the cooldown', async () => {
    const redis = new Redis(process.env.REDIS_URL!);
    try {
      const store = createRedisBreakerStore(redis, `t${randomBytes(6).toString('hex')}`);
      const until = Date.now() + 60_000;
      await store.open('p/a', until, 60_000);
      await store.open('p/short', until, 1);
      await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(await store.read(['p/a', 'p/b', 'p/short']), [until, null, null]);
      await store.close('p/a');
      assert.deepEqual(await store.read(['p/a']), [null]);
    } finally {
      redis.disconnect();
    }
  });
});
