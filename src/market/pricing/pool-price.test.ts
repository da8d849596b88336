import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { marketPools } from './market-pools.ts';
import { poolPrice, poolPrices, priceFraction } from './pool-price.ts';

describe('pool prices', () => {
  it('is (P[o] + V[o]) / (T + V)', () => {
    // yes: (30 + 50) / (30 + 20 + 100) = 80/150; no: (20 + 50) / 150 = 70/150.
    const pools = marketPools({ yes: 50n, no: 50n }, { yes: 30n, no: 20n });
    assert.deepEqual(priceFraction(pools, 'yes'), { numerator: 80n, denominator: 150n });
    assert.equal(poolPrice(pools, 'yes'), 80 / 150);
    assert.deepEqual(poolPrices(pools), { yes: 80 / 150, no: 70 / 150 });
  });

  it('opens at the seed split', () => {
    assert.deepEqual(poolPrices(marketPools({ yes: 60_000_000n, no: 40_000_000n })), { yes: 0.6, no: 0.4 });
    const three = poolPrices(marketPools({ yes: 1n, no: 1n, draw: 2n }));
    assert.deepEqual(three, { yes: 0.25, no: 0.25, draw: 0.5 });
  });

  it('refuses an outcome the market does not have', () => {
    assert.throws(() => priceFraction(marketPools({ yes: 1n, no: 1n }), 'draw'), RangeError);
  });

  it('sums to 1 within float rounding, also for pools beyond 2^53 units', () => {
    const amount = fc.bigInt({ min: 0n, max: 10n ** 18n });
    const seed = fc.bigInt({ min: 1n, max: 10n ** 12n });
    fc.assert(
      fc.property(fc.boolean(), fc.tuple(seed, seed, seed), fc.tuple(amount, amount, amount), (three, v, p) => {
        const pools = three
          ? marketPools({ yes: v[0], no: v[1], draw: v[2] }, { yes: p[0], no: p[1], draw: p[2] })
          : marketPools({ yes: v[0], no: v[1] }, { yes: p[0], no: p[1] });
        const prices = Object.values(poolPrices(pools));
        assert.ok(prices.every((x) => x >= 0 && x <= 1));
        assert.ok(Math.abs(prices.reduce((a, b) => a + b, 0) - 1) < 1e-12);
      }),
      { numRuns: 500 },
    );
  });
});
