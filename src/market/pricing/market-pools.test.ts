import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isOutcome, mapOutcomes, marketOutcomes, marketPools, poolTotals, recordOutcomes } from './market-pools.ts';

describe('market pools', () => {
  it('gives two outcomes to every market type but threeway', () => {
    assert.deepEqual(marketOutcomes('yesno'), ['yes', 'no']);
    assert.deepEqual(marketOutcomes('updown'), ['yes', 'no']);
    assert.deepEqual(marketOutcomes('custom'), ['yes', 'no']);
    assert.deepEqual(marketOutcomes('threeway'), ['yes', 'no', 'draw']);
  });

  it('recognises outcome names in the request spelling only', () => {
    assert.equal(isOutcome('draw'), true);
    assert.equal(isOutcome('YES'), false);
    assert.equal(isOutcome(1), false);
  });

  it('joins seeds and real pools, real pools defaulting to zero', () => {
    const pools = marketPools({ yes: 50n, no: 60n }, { yes: 7n, no: 0n });
    assert.deepEqual(pools, { yes: { real: 7n, seed: 50n }, no: { real: 0n, seed: 60n } });
    assert.deepEqual(poolTotals(pools), { real: 7n, seed: 110n });
    const three = marketPools({ yes: 1n, no: 2n, draw: 3n });
    assert.deepEqual(recordOutcomes(three), ['yes', 'no', 'draw']);
    assert.deepEqual(poolTotals(three), { real: 0n, seed: 6n });
  });

  it('refuses a seed below 1 unit, a negative pool, or mismatched outcomes', () => {
    assert.throws(() => marketPools({ yes: 0n, no: 5n }), RangeError);
    assert.throws(() => marketPools({ yes: 1n, no: 5n }, { yes: -1n, no: 0n }), RangeError);
    assert.throws(() => marketPools({ yes: 1n, no: 5n }, { yes: 0n, no: 0n, draw: 0n }), RangeError);
  });

  it('maps over outcomes keeping draw only when asked', () => {
    assert.deepEqual(mapOutcomes(['yes', 'no'], (o) => o.length), { yes: 3, no: 2 });
    assert.deepEqual(mapOutcomes(['yes', 'no', 'draw'], (o) => o.length), { yes: 3, no: 2, draw: 4 });
  });
});
