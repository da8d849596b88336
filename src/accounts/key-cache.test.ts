import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createKeyCache } from './key-cache.ts';
import type { Principal } from './principal.ts';

const alice: Principal = { keyId: 1, accountId: 10, emailVerified: true, keyPrefix: 'svk_aaaaaa' };
const bob: Principal = { keyId: 2, accountId: 20, emailVerified: false, keyPrefix: 'svk_bbbbbb' };

function setup(ttlMs = 5000, maxEntries?: number) {
  let now = 1_000_000;
  const table = new Map<string, Principal | null>([['ha', alice], ['hb', bob]]);
  let loads = 0;
  const cache = createKeyCache({
    clock: { now: () => now },
    ttlMs,
    maxEntries,
    load: async (h) => {
      loads++;
      return table.get(h) ?? null;
    },
  });
  return { cache, table, advance: (ms: number) => (now += ms), loads: () => loads };
}

describe('key cache', () => {
  it('answers repeated lookups from memory within the TTL', async () => {
    const s = setup();
    assert.deepEqual(await s.cache.get('ha'), alice);
    for (let i = 0; i < 10; i++) await s.cache.get('ha');
    assert.equal(s.loads(), 1);
    assert.equal(await s.cache.get('unknown'), null);
    assert.equal(await s.cache.get('unknown'), null);
    assert.equal(s.loads(), 2, 'unknown keys are cached too');
  });

  it('peeks at fresh entries only, without loading anything', async () => {
    const s = setup(5000);
    assert.equal(s.cache.peek('ha'), undefined);
    assert.equal(s.loads(), 0);
    await s.cache.get('ha');
    await s.cache.get('unknown');
    assert.deepEqual(s.cache.peek('ha'), alice);
    assert.equal(s.cache.peek('unknown'), null, 'a cached unknown key is known to be unknown');
    s.advance(5000);
    assert.equal(s.cache.peek('ha'), undefined, 'an expired entry must be read again');
    s.cache.forgetAll();
    assert.equal(s.cache.peek('unknown'), undefined);
    assert.equal(s.loads(), 2);
  });

  it('reads again after the TTL, so a revocation elsewhere is seen within it', async () => {
    const s = setup(5000);
    await s.cache.get('ha');
    s.table.set('ha', null);
    s.advance(4999);
    assert.deepEqual(await s.cache.get('ha'), alice, 'still trusted inside the TTL');
    s.advance(1);
    assert.equal(await s.cache.get('ha'), null);
  });

  it('forgets a key or an account at once', async () => {
    const s = setup();
    await s.cache.get('ha');
    await s.cache.get('hb');
    s.table.set('ha', null);
    s.cache.forgetKey(1);
    assert.equal(await s.cache.get('ha'), null);
    s.table.set('hb', { ...bob, emailVerified: true });
    s.cache.forgetAccount(20);
    assert.equal((await s.cache.get('hb'))?.emailVerified, true);
  });

  it('forgets everything, unknown keys included, when told changes may have been missed', async () => {
    const s = setup();
    await s.cache.get('ha');
    await s.cache.get('hnew');
    s.table.set('ha', null);
    s.table.set('hnew', alice);
    s.cache.forgetAll();
    assert.equal(s.cache.size, 0);
    assert.equal(await s.cache.get('ha'), null);
    assert.deepEqual(await s.cache.get('hnew'), alice);
  });

  it('shares one query between concurrent misses', async () => {
    const s = setup();
    const all = await Promise.all(Array.from({ length: 20 }, () => s.cache.get('ha')));
    assert.ok(all.every((p) => p?.keyId === 1));
    assert.equal(s.loads(), 1);
  });

  it('does not store an answer read before a forget', async () => {
    const s = setup();
    const racing = s.cache.get('ha');
    s.table.set('ha', null);
    s.cache.forgetKey(1);
    await racing;
    assert.equal(await s.cache.get('ha'), null, 'the pre-revocation answer was not kept');
  });

  it('keeps at most maxEntries, dropping the oldest', async () => {
    const s = setup(5000, 3);
    for (const h of ['x1', 'x2', 'x3', 'x4']) await s.cache.get(h);
    assert.equal(s.cache.size, 3);
    const before = s.loads();
    await s.cache.get('x4');
    assert.equal(s.loads(), before);
    await s.cache.get('x1');
    assert.equal(s.loads(), before + 1, 'the oldest entry was evicted');
  });

  it('with a TTL of 0 reads every time', async () => {
    const s = setup(0);
    await s.cache.get('ha');
    await s.cache.get('ha');
    assert.equal(s.loads(), 2);
  });
});
