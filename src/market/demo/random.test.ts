import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededRandom } from './random.ts';

describe('seededRandom', () => {
  it('repeats for one seed and differs for another', () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const c = seededRandom(8);
    const xs = Array.from({ length: 5 }, () => a.next());
    assert.deepEqual(xs, Array.from({ length: 5 }, () => b.next()));
    assert.notDeepEqual(xs, Array.from({ length: 5 }, () => c.next()));
    for (const x of xs) assert.ok(x >= 0 && x < 1);
  });

  it('draws ints in range, weighted indexes and hex digits', () => {
    const r = seededRandom(1);
    for (let i = 0; i < 200; i++) {
      const n = r.int(3, 5);
      assert.ok(n >= 3 && n <= 5);
      assert.notEqual(r.weighted([0, 1, 0]), 0);
    }
    assert.match(r.hex(40), /^[0-9a-f]{40}$/);
  });
});
