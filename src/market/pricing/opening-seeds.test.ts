import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DEFAULT_SEED_UNITS, openingSeeds } from './opening-seeds.ts';

describe('opening seeds', () => {
  it('splits 100 USDC evenly by default', () => {
    assert.equal(DEFAULT_SEED_UNITS, 100_000_000n);
    assert.deepEqual(openingSeeds('yesno'), { yes: 50_000_000n, no: 50_000_000n });
    assert.deepEqual(openingSeeds('updown'), { yes: 50_000_000n, no: 50_000_000n });
  });

  it('gives a threeway market the remainder unit on yes, summing to exactly 100 USDC', () => {
    // 100,000,000 / 3 = 33,333,333 rest 1; the tie of remainders goes to the first outcome.
    assert.deepEqual(openingSeeds('threeway'), { yes: 33_333_334n, no: 33_333_333n, draw: 33_333_333n });
    assert.deepEqual(openingSeeds('threeway', { liquidity: 5n }), { yes: 2n, no: 2n, draw: 1n });
  });

  it('splits by the decimal text of the creator prices, not their float values', () => {
    // 0.6 as a double is 0.5999999999999999778; read as 6/10 it gives exactly 60 USDC.
    assert.deepEqual(openingSeeds('yesno', { prices: { yes: 0.6, no: 0.4 } }), { yes: 60_000_000n, no: 40_000_000n });
    assert.deepEqual(openingSeeds('threeway', { prices: { yes: 0.5, no: 0.3, draw: 0.2 }, liquidity: 1000n }), { yes: 500n, no: 300n, draw: 200n });
  });

  it('normalises prices that sum to 1 only within 1e-6, largest remainder first', () => {
    // weights 3333333/9999999 each, 10 units: 3 each, the leftover unit to yes (tie, first).
    assert.deepEqual(openingSeeds('threeway', { prices: { yes: 0.3333333, no: 0.3333333, draw: 0.3333333 }, liquidity: 10n }), { yes: 4n, no: 3n, draw: 3n });
    // 7 units at 0.15/0.85: 1.05 and 5.95 -> 1 and 5, the leftover to no (.95 > .05).
    assert.deepEqual(openingSeeds('yesno', { prices: { yes: 0.15, no: 0.85 }, liquidity: 7n }), { yes: 1n, no: 6n });
  });

  it('keeps every seed at least 1 unit', () => {
    // 3 units at 0.98/0.01/0.01: 2.94, 0.03, 0.03 -> 3, 0, 0 -> no and draw take a unit from yes.
    assert.deepEqual(openingSeeds('threeway', { prices: { yes: 0.98, no: 0.01, draw: 0.01 }, liquidity: 3n }), { yes: 1n, no: 1n, draw: 1n });
    assert.deepEqual(openingSeeds('yesno', { prices: { yes: 0.999999, no: 0.000001 }, liquidity: 100n }), { yes: 99n, no: 1n });
  });

  it('refuses bad opening prices with a message naming the field', () => {
    const bad = (prices: unknown, message: string, type: 'yesno' | 'threeway' = 'yesno') =>
      assert.throws(() => openingSeeds(type, { prices }), { status: 400, message });
    bad([0.5, 0.5], 'opening_prices must be an object keyed by outcome (yes, no)');
    bad(null, 'opening_prices must be an object keyed by outcome (yes, no)');
    bad({ yes: 0.5, no: 0.4, draw: 0.1 }, 'opening_prices.draw is not an outcome of a yesno market (yes, no)');
    bad({ yes: 0.5 }, 'opening_prices.no is required');
    bad({ yes: 0.5, no: 0.5 }, 'opening_prices.draw is required', 'threeway');
    bad({ yes: 1, no: 0 }, 'opening_prices.yes must be a number between 0 and 1, both excluded');
    bad({ yes: '0.5', no: 0.5 }, 'opening_prices.yes must be a number between 0 and 1, both excluded');
    bad({ yes: 0.5, no: Number.NaN }, 'opening_prices.no must be a number between 0 and 1, both excluded');
    bad({ yes: 0.5, no: 0.49 }, 'opening_prices must sum to 1 (within 0.000001), got 0.99');
  });

  it('refuses too little or too much liquidity', () => {
    assert.throws(() => openingSeeds('threeway', { liquidity: 2n }), { status: 400, message: 'seed_liquidity must be at least 0.000003 USDC' });
    assert.throws(() => openingSeeds('yesno', { liquidity: 10n ** 15n + 1n }), { status: 400, message: 'seed_liquidity must be at most 1000000000 USDC' });
  });

  it('always sums to the liquidity with every seed >= 1 (property)', () => {
    const price = fc.integer({ min: 1, max: 999_999 }).map((n) => n / 1_000_000);
    fc.assert(
      fc.property(fc.boolean(), price, price, fc.bigInt({ min: 3n, max: 10n ** 15n }), (three, a, b, liquidity) => {
        fc.pre(a + b < 1 || !three);
        const prices = three ? { yes: a, no: b, draw: Number((1 - a - b).toFixed(6)) } : { yes: a, no: Number((1 - a).toFixed(6)) };
        fc.pre(Object.values(prices).every((p) => p > 0 && p < 1));
        const seeds = openingSeeds(three ? 'threeway' : 'yesno', { prices, liquidity });
        const values = Object.values(seeds) as bigint[];
        assert.equal(values.reduce((s, v) => s + v, 0n), liquidity);
        assert.ok(values.every((v) => v >= 1n));
      }),
      { numRuns: 500 },
    );
  });
});
