import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ResponseCache } from './response-cache.ts';

describe('ResponseCache', () => {
  it('serves an answer for ttlMs, then forgets it', () => {
    let now = 1000;
    const c = new ResponseCache(500, { now: () => now });
    c.set('a', '{"x":1}');
    assert.equal(c.get('a'), '{"x":1}');
    now = 1499;
    assert.equal(c.get('a'), '{"x":1}');
    now = 1500;
    assert.equal(c.get('a'), undefined);
  });

  it('keeps nothing when disabled and at most maxEntries otherwise', () => {
    const off = new ResponseCache(0, { now: () => 0 });
    off.set('a', '1');
    assert.equal(off.get('a'), undefined);
    const small = new ResponseCache(1000, { now: () => 0 }, 2);
    small.set('a', '1');
    small.set('b', '2');
    small.set('c', '3');
    assert.equal(small.get('a'), undefined);
    assert.equal(small.get('b'), '2');
    assert.equal(small.get('c'), '3');
  });

  it('does not serve an answer from the future when the clock moves back', () => {
    let now = 1000;
    const c = new ResponseCache(500, { now: () => now });
    c.set('a', '1');
    now = 900;
    assert.equal(c.get('a'), undefined);
  });
});
