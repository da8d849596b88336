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
    assert.deepEqual(openingSeeds('threeway', { liquidity: 5_000_000n }), { yes: 1_666_667n, no: 1_666_667n, draw: 1_666_666n });
  });

  it('splits by the decimal text of the creator prices, not their float values', () => {
    // 0.6 as a double is 0.5999999999999999778; read as 6/10 it gives exactly 60 USDC.
    assert.deepEqual(openingSeeds('yesno', { prices: { yes: 0.6, no: 0.4 } }), { yes: 60_000_000n, no: 40_000_000n });
    assert.deepEqual(openingSeeds('threeway', { prices: { yes: 0.5, no: 0.3, draw: 0.2 }, liquidity: 1000n }), { yes: 500n, no: 300n, draw: 200n });
  });

  it('normalises prices that sum to 1 only within 1e-6, largest remainder first', () => {
    // weights 3333333/9999999 each, 10 USDC: 3,333,333 each, the leftover unit to yes (tie, first).
    const thirds = { yes: 0.3333333, no: 0.3333333, draw: 0.3333333 };
    assert.deepEqual(openingSeeds('threeway', { prices: thirds, liquidity: 10_000_000n }), { yes: 3_333_334n, no: 3_333_333n, draw: 3_333_333n });
    // 7,000,001 units at 0.15/0.85: 1,050,000.15 and 5,950,000.85 -> the leftover unit to no (.85 > .15).
    assert.deepEqual(openingSeeds('yesno', { prices: { yes: 0.15, no: 0.85 }, liquidity: 7_000_001n }), { yes: 1_050_000n, no: 5_950_001n });
  });

  it('keeps every seed at least 1 unit', () => {
    // 1e-9 of 100 USDC is 0.1 unit: the floor 0 takes a unit from the largest (opens at 1e-8, within 1e-6).
    assert.deepEqual(openingSeeds('yesno', { prices: { yes: 0.000000001, no: 0.999999999 } }), { yes: 1n, no: 99_999_999n });
    assert.deepEqual(openingSeeds('threeway', { prices: { yes: 0.999999998, no: 0.000000001, draw: 0.000000001 } }), { yes: 99_999_998n, no: 1n, draw: 1n });
    assert.deepEqual(openingSeeds('yesno', { prices: { yes: 0.999999, no: 0.000001 } }), { yes: 99_999_900n, no: 100n });
  });

  it('refuses a liquidity too small to open at the prices asked (within 1e-6), rather than opening at others', () => {
    const tooSmall = (type: 'yesno' | 'threeway', prices: unknown, liquidity: bigint, message: string) =>
      assert.throws(() => openingSeeds(type, { prices, liquidity }), { status: 400, message });
    // These were opened at 1/3 each, 1/7 and 6/7, 99/100 and 1/100.
    tooSmall('threeway', { yes: 0.98, no: 0.01, draw: 0.01 }, 3n, 'seed_liquidity 0.000003 USDC is too small to open at these prices: yes would open at 0.33333333 instead of 0.98 (each within 0.000001)');
    tooSmall('yesno', { yes: 0.15, no: 0.85 }, 7n, 'seed_liquidity 0.000007 USDC is too small to open at these prices: yes would open at 0.14285714 instead of 0.15 (each within 0.000001)');
    tooSmall('yesno', { yes: 0.999999, no: 0.000001 }, 100n, 'seed_liquidity 0.0001 USDC is too small to open at these prices: yes would open at 0.99 instead of 0.999999 (each within 0.000001)');
    tooSmall('threeway', undefined, 5n, 'seed_liquidity 0.000005 USDC is too small to open at even prices: yes would open at 0.4 instead of 0.33333333 (each within 0.000001)');
    // Exact splits open whatever the size.
    assert.deepEqual(openingSeeds('threeway', { liquidity: 3n }), { yes: 1n, no: 1n, draw: 1n });
    assert.deepEqual(openingSeeds('yesno', { prices: { yes: 0.25, no: 0.75 }, liquidity: 4n }), { yes: 1n, no: 3n });
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

  it('opens at the prices asked within 1e-6, summing to the liquidity with every seed >= 1, or refuses (property)', () => {
    const price = fc.integer({ min: 1, max: 999_999 }).map((n) => n / 1_000_000);
    fc.assert(
      fc.property(fc.boolean(), price, price, fc.bigInt({ min: 3n, max: 10n ** 15n }), (three, a, b, liquidity) => {
        fc.pre(a + b < 1 || !three);
        const prices = three ? { yes: a, no: b, draw: Number((1 - a - b).toFixed(6)) } : { yes: a, no: Number((1 - a).toFixed(6)) };
        fc.pre(Object.values(prices).every((p) => p > 0 && p < 1));
        let seeds;
        try {
          seeds = openingSeeds(three ? 'threeway' : 'yesno', { prices, liquidity });
        } catch (e) {
          // Only a liquidity under 1 USDC can be too small for prices of 6 decimals.
          assert.ok(liquidity < 1_000_000n, String(e));
          assert.match((e as Error).message, /^seed_liquidity .* is too small to open at these prices/);
          return;
        }
        const values = Object.values(seeds) as bigint[];
        assert.equal(values.reduce((s, v) => s + v, 0n), liquidity);
        assert.ok(values.every((v) => v >= 1n));
        for (const [o, p] of Object.entries(prices)) {
          assert.ok(Math.abs(Number(seeds[o as 'yes']!) / Number(liquidity) - p) <= 1e-6 + 1e-12, `${o}`);
        }
      }),
      { numRuns: 500 },
    );
  });
});
