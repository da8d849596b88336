import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { marketPools } from './market-pools.ts';
import { openingSeeds } from './opening-seeds.ts';
import { refundMarket } from './refund-market.ts';

describe('refundMarket', () => {
  it('returns every stake as a refund, no fee, no dust', () => {
    const positions = [
      { id: 10n, outcome: 'yes', stake: 3_000_000n, shares: 5_000_000n },
      { id: 11n, outcome: 'no', stake: 1_500_000n, shares: 2_000_000n },
      { id: 12n, outcome: 'draw', stake: 2_000_001n, shares: 4_000_000n },
    ] as const;
    const pools = marketPools(openingSeeds('threeway'), { yes: 3_000_000n, no: 1_500_000n, draw: 2_000_001n });
    const s = refundMarket(pools, positions);
    assert.deepEqual(s, {
      mode: 'cancelled',
      winner: null,
      total: 6_500_001n,
      winningPool: 0n,
      winningShares: 0n,
      losingPool: 0n,
      fee: 0n,
      distributed: 0n,
      dust: 0n,
      paidOut: 6_500_001n,
      payouts: [
        { id: 10n, outcome: 'yes', kind: 'refund', stake: 3_000_000n, amount: 3_000_000n },
        { id: 11n, outcome: 'no', kind: 'refund', stake: 1_500_000n, amount: 1_500_000n },
        { id: 12n, outcome: 'draw', kind: 'refund', stake: 2_000_001n, amount: 2_000_001n },
      ],
    });
  });

  it('checks the positions against the pools like settlement does', () => {
    const pools = marketPools(openingSeeds('yesno'), { yes: 1n, no: 0n });
    assert.throws(() => refundMarket(pools, []), /stakes on yes add up to 0 units but the pool holds 1/);
  });
});
