import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { createLeasedRateLimiter, type LeasedRateLimiter } from './leased-limiter.ts';

const REDIS_URL = process.env.REDIS_URL;

/** A client of its own per "instance", counting the commands it sends. */
function counted(): { redis: Redis; commands: () => number } {
  const redis = new Redis(REDIS_URL!, { maxRetriesPerRequest: 1, enableOfflineQueue: true });
  let n = 0;
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = ((...args: Parameters<Redis['sendCommand']>) => {
    n++;
    return send(...args);
  }) as Redis['sendCommand'];
  return { redis, commands: () => n };
}

describe('leased rate limiter: budgets reserved from Redis in batches, spent from memory', { skip: !REDIS_URL && 'REDIS_URL not set' }, () => {
  const clients: Redis[] = [];
  const limiters: LeasedRateLimiter[] = [];
  after(async () => {
    for (const l of limiters) await l.close();
    for (const c of clients) c.disconnect();
  });

  /** Two "instances": limiters on their own connections sharing one namespace. */
  const pair = (points: number, batch = 100, recheckMs?: number) => {
    const name = `t${randomBytes(6).toString('hex')}:inference`;
    return [0, 1].map(() => {
      const c = counted();
      clients.push(c.redis);
      const limiter = createLeasedRateLimiter({ redis: c.redis, name, points, durationSeconds: 60, batch, syncMs: 0, recheckMs });
      limiters.push(limiter);
      return { limiter, commands: c.commands };
    }) as [{ limiter: LeasedRateLimiter; commands: () => number }, { limiter: LeasedRateLimiter; commands: () => number }];
  };

  it('admits exactly the limit from one instance, counting down, and asks Redis far less than once a request', async () => {
    const [a] = pair(1000, 50);
    for (let i = 1; i <= 1000; i++) {
      const d = await a.limiter.consume('acct:1');
      assert.equal(d.allowed, true, `request ${i}`);
      assert.equal(d.remaining, 1000 - i);
    }
    const refused = await a.limiter.consume('acct:1');
    assert.equal(refused.allowed, false);
    assert.equal(refused.remaining, 0);
    assert.ok(refused.resetMs > 0 && refused.resetMs <= 60_000);
    // Batches of 50 while far from the limit, an eighth of what is left nearer it, one at the end.
    assert.ok(a.commands() < 100, `${a.commands()} Redis commands for 1001 requests`);
    const before = a.commands();
    for (let i = 0; i < 20; i++) assert.equal((await a.limiter.consume('acct:1')).allowed, false);
    assert.ok(a.commands() - before <= 1, 'refusals are answered from memory');
  });

  it('never admits more than the limit across two instances under concurrent load', async () => {
    const [a, b] = pair(60);
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? a : b).limiter.consume('acct:7')),
    );
    const admitted = results.filter((d) => d.allowed).length;
    // Both instances have more demand than budget, so every reserved point is spent: exactly 60.
    assert.equal(admitted, 60);
    for (const d of results.filter((r) => !r.allowed)) {
      assert.equal(d.remaining, 0);
      assert.ok(d.resetMs > 0);
    }
  });

  it('gives an idle instance’s unused reservation back, so another instance can spend it', async () => {
    // recheckMs 0: b asks Redis again after each refusal instead of answering it from memory.
    const [a, b] = pair(60, 100, 0);
    assert.equal((await a.limiter.consume('acct:9')).allowed, true);
    // a reserved 7 (an eighth of 60) and spent 1: meanwhile b can have the other 53 only.
    const drain = async () => {
      let n = 0;
      while ((await b.limiter.consume('acct:9')).allowed) n++;
      return n;
    };
    assert.equal(await drain(), 53);
    await a.limiter.sync(); // marks a's lease idle
    assert.equal(await drain(), 0, 'a lease used since the last sync is kept');
    await a.limiter.sync(); // still idle: its 6 unused points go back
    assert.equal(await drain(), 6);
    assert.equal((await a.limiter.consume('acct:9')).allowed, false, 'a holds nothing any more');
  });
});
