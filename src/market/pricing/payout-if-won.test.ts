import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { marketPools } from './market-pools.ts';
import { openingSeeds } from './opening-seeds.ts';
import { payoutIfWon } from './payout-if-won.ts';
import { quoteTrade } from './quote-trade.ts';
import { settleMarket } from './settle-market.ts';

const USDC = 1_000_000n;

describe('payoutIfWon', () => {
  it('pays the stake plus its share of the losing pool less 5%, as settlement would (hand-computed)', () => {
    // A staked 10 on yes (19.116077 shares), B 20 on no. C quotes 5 on yes: S = 60, O = 70 ->
    // 10.602989 shares. Resolved yes now: W = 15, L = 20, fee = 1, D = 19, H = 29.719066;
    // C gets 5 + floor(19e6 * 10,602,989 / 29,719,066) = 5 + 6.778705 = 11.778705 USDC.
    const pools = marketPools(openingSeeds('yesno'), { yes: 10n * USDC, no: 20n * USDC });
    const quote = quoteTrade(pools, 'yes', 5n * USDC);
    assert.equal(quote.shares, 10_602_989n);
    const p = payoutIfWon(quote, { yes: 19_116_077n, no: 40_188_334n });
    assert.deepEqual(p, { payout: 11_778_705n, profit: 6_778_705n, fee: USDC });
  });

  it('returns the stake alone when nobody else staked against it', () => {
    const quote = quoteTrade(marketPools(openingSeeds('threeway')), 'draw', 10n * USDC);
    assert.deepEqual(payoutIfWon(quote, { yes: 0n, no: 0n, draw: 0n }), { payout: 10n * USDC, profit: 0n, fee: 0n });
  });

  it('agrees with settleMarket over the real positions, however the other holders are split', () => {
    const stake = fc.bigInt({ min: USDC, max: 5_000n * USDC });
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('yes', 'no', 'draw' as const), stake), { minLength: 0, maxLength: 12 }), fc.constantFrom('yes', 'no', 'draw' as const), stake, (trades, side, mine) => {
        let pools = marketPools(openingSeeds('threeway'));
        const positions: { id: number; outcome: 'yes' | 'no' | 'draw'; stake: bigint; shares: bigint }[] = [];
        for (const [o, a] of trades) {
          const q = quoteTrade(pools, o, a);
          positions.push({ id: positions.length, outcome: o, stake: a, shares: q.shares });
          pools = q.poolsAfter;
        }
        const held = { yes: 0n, no: 0n, draw: 0n };
        for (const p of positions) held[p.outcome] += p.shares;
        const quote = quoteTrade(pools, side, mine);
        const estimate = payoutIfWon(quote, held);
        const real = settleMarket(quote.poolsAfter, [...positions, { id: -1, outcome: side, stake: mine, shares: quote.shares }], side);
        assert.equal(estimate.payout, real.payouts.find((p) => p.id === -1)!.amount);
        assert.equal(estimate.fee, real.fee);
      }),
      { numRuns: 200 },
    );
  });
});
