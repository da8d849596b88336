import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { markPosition, positionMarkJson, summarizeTrader } from './position-marks.ts';

describe('markPosition', () => {
  it('values shares at the current price against the cost basis', () => {
    // 10 USDC bought 19.116077 shares; yes now at 0.6: value 11.469646 (11.4696462 rounded),
    // pnl 1.469646, 14.69646%, avg price 10 / 19.116077.
    const mark = markPosition({ shares: 19_116_077n, costBasis: 10_000_000n }, 0.6);
    assert.equal(mark.currentValue, 11_469_646n);
    assert.equal(mark.pnl, 1_469_646n);
    assert.equal(mark.pnlPercent, (1_469_646 / 10_000_000) * 100);
    assert.equal(mark.avgPrice, 10_000_000 / 19_116_077);
    assert.deepEqual(positionMarkJson(mark), {
      shares: 19.116077,
      avg_price: 10_000_000 / 19_116_077,
      current_price: 0.6,
      current_value: 11.469646,
      cost_basis: 10,
      pnl: 1.469646,
      pnl_percent: 14.69646,
    });
  });

  it('shows a loss as a negative pnl, and zeros for an empty position', () => {
    const mark = markPosition({ shares: 2_000_000n, costBasis: 1_500_000n }, 0.25);
    assert.equal(mark.currentValue, 500_000n);
    assert.equal(mark.pnl, -1_000_000n);
    assert.equal(positionMarkJson(mark).pnl_percent, (-1_000_000 / 1_500_000) * 100);
    const empty = markPosition({ shares: 0n, costBasis: 0n }, 0.5);
    assert.deepEqual([empty.avgPrice, empty.pnlPercent, empty.currentValue], [0, 0, 0n]);
  });

  it('refuses a price outside [0, 1] and negative amounts', () => {
    assert.throws(() => markPosition({ shares: 1n, costBasis: 1n }, 1.5), RangeError);
    assert.throws(() => markPosition({ shares: -1n, costBasis: 1n }, 0.5), RangeError);
  });
});

describe('summarizeTrader', () => {
  it('adds realized results of settled markets and the marks of open positions', () => {
    const settled = [
      { staked: 300_000_000n, settled: 490_000_000n, refunded: 0n }, // won: +190
      { staked: 200_000_000n, settled: 0n, refunded: 0n }, // lost: -200
      { staked: 50_000_000n, settled: 0n, refunded: 50_000_000n }, // cancelled: 0, not won
      { staked: 80_000_000n, settled: 100_000_000n, refunded: 0n }, // won: +20
    ];
    const open = [{ pnl: 1_469_646n }, { pnl: -1_000_000n }];
    assert.deepEqual(summarizeTrader(settled, open), {
      totalPnl: 10_469_646n,
      realizedPnl: 10_000_000n,
      unrealizedPnl: 469_646n,
      wonMarkets: 2,
      settledMarkets: 4,
      winRate: 0.5,
    });
  });

  it('has a win rate of 0 with no settled markets', () => {
    assert.deepEqual(summarizeTrader([], [{ pnl: 5n }]), {
      totalPnl: 5n,
      realizedPnl: 0n,
      unrealizedPnl: 5n,
      wonMarkets: 0,
      settledMarkets: 0,
      winRate: 0,
    });
  });
});
