import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { type MarketPools, type Outcome, marketPools, poolTotals } from './market-pools.ts';
import { openingSeeds } from './opening-seeds.ts';
import { quoteTrade } from './quote-trade.ts';
import { type MarketSettlement, type SettlementPosition, settleMarket } from './settle-market.ts';

const USDC = 1_000_000n;

/** Pools whose real parts are the positions' stakes, as the books require. */
function poolsFor(positions: readonly SettlementPosition<unknown>[], three = false): MarketPools {
  const sum = (o: Outcome) => positions.filter((p) => p.outcome === o).reduce((s, p) => s + p.stake, 0n);
  return three
    ? marketPools(openingSeeds('threeway'), { yes: sum('yes'), no: sum('no'), draw: sum('draw') })
    : marketPools(openingSeeds('yesno'), { yes: sum('yes'), no: sum('no') });
}

function assertBalanced(s: MarketSettlement<unknown>): void {
  assert.equal(s.payouts.reduce((sum, p) => sum + p.amount, 0n) + s.fee + s.dust, s.total);
}

describe('settleMarket', () => {
  it('pays several winners their stake plus their share of the losing pool less 5%', () => {
    // T = 500, W = 300 (alice 100, bob 200), H = 400 shares (150 + 250), L = 200 (carol).
    // fee = floor(200 * 500 / 10000) = 10; D = 190.
    // alice: 100 + floor(190 * 150 / 400) = 100 + 71.25  = 171.25 USDC
    // bob:   200 + floor(190 * 250 / 400) = 200 + 118.75 = 318.75 USDC; dust 0.
    const positions = [
      { id: 'alice', outcome: 'yes', stake: 100n * USDC, shares: 150n * USDC },
      { id: 'bob', outcome: 'yes', stake: 200n * USDC, shares: 250n * USDC },
      { id: 'carol', outcome: 'no', stake: 200n * USDC, shares: 300n * USDC },
    ] as const;
    const s = settleMarket(poolsFor(positions), positions, 'yes');
    assert.deepEqual(s, {
      mode: 'resolved',
      winner: 'yes',
      total: 500n * USDC,
      winningPool: 300n * USDC,
      winningShares: 400n * USDC,
      losingPool: 200n * USDC,
      fee: 10n * USDC,
      distributed: 190n * USDC,
      dust: 0n,
      paidOut: 490n * USDC,
      payouts: [
        { id: 'alice', outcome: 'yes', kind: 'settlement', stake: 100n * USDC, amount: 171_250_000n },
        { id: 'bob', outcome: 'yes', kind: 'settlement', stake: 200n * USDC, amount: 318_750_000n },
        { id: 'carol', outcome: 'no', kind: 'lost', stake: 200n * USDC, amount: 0n },
      ],
    });
    assertBalanced(s);
  });

  it('sends the floor remainders to the protocol as dust', () => {
    // Three equal winners of 1 USDC each; the loser staked 1 USDC. L = 1,000,000 units,
    // fee = 50,000, D = 950,000; 950,000 / 3 = 316,666.67 -> 316,666 each, dust = 2.
    // Also the fee is floored: a loser pool of 1,000,019 gives floor(50,000.95) = 50,000.
    const positions = [
      { id: 1, outcome: 'yes', stake: USDC, shares: 2_000_000n },
      { id: 2, outcome: 'yes', stake: USDC, shares: 2_000_000n },
      { id: 3, outcome: 'yes', stake: USDC, shares: 2_000_000n },
      { id: 4, outcome: 'no', stake: USDC, shares: 2_000_000n },
    ] as const;
    const s = settleMarket(poolsFor(positions), positions, 'yes');
    assert.equal(s.fee, 50_000n);
    assert.equal(s.distributed, 950_000n);
    assert.equal(s.dust, 2n);
    assert.deepEqual(s.payouts.map((p) => p.amount), [1_316_666n, 1_316_666n, 1_316_666n, 0n]);
    assertBalanced(s);

    const odd = [
      { id: 1, outcome: 'yes', stake: USDC, shares: USDC },
      { id: 2, outcome: 'no', stake: 1_000_019n, shares: USDC },
    ] as const;
    const t = settleMarket(poolsFor(odd), odd, 'yes');
    assert.equal(t.fee, 50_000n);
    assert.deepEqual(t.payouts.map((p) => p.amount), [1n * USDC + 950_019n, 0n]);
    assertBalanced(t);
  });

  it('refunds every stake with no fee when nobody holds the winning outcome (H = 0)', () => {
    const positions = [
      { id: 'a', outcome: 'yes', stake: 5n * USDC, shares: 9n * USDC },
      { id: 'b', outcome: 'yes', stake: 2n * USDC, shares: 3n * USDC },
    ] as const;
    const s = settleMarket(poolsFor(positions), positions, 'no');
    assert.equal(s.mode, 'no_winners');
    assert.equal(s.winner, 'no');
    assert.equal(s.winningShares, 0n);
    assert.equal(s.fee, 0n);
    assert.equal(s.dust, 0n);
    assert.equal(s.total, 7n * USDC);
    assert.deepEqual(
      s.payouts.map((p) => [p.id, p.kind, p.amount]),
      [
        ['a', 'refund', 5n * USDC],
        ['b', 'refund', 2n * USDC],
      ],
    );
    assertBalanced(s);
    // A market with no positions at all settles to nothing.
    const empty = settleMarket(marketPools(openingSeeds('yesno')), [], 'yes');
    assert.equal(empty.total, 0n);
    assert.deepEqual(empty.payouts, []);
  });

  it('settles a threeway market to draw from real trades', () => {
    // Three trades on a fresh threeway market; the draw holder takes both other pools less 5%.
    let pools = marketPools(openingSeeds('threeway'));
    const positions: SettlementPosition<string>[] = [];
    for (const [id, outcome, stake] of [
      ['w2', 'draw', 10n * USDC],
      ['w1', 'yes', 30n * USDC],
      ['w3', 'no', 20n * USDC],
    ] as const) {
      const q = quoteTrade(pools, outcome, stake);
      pools = q.poolsAfter;
      positions.push({ id, outcome, stake, shares: q.shares });
    }
    // w2 bought 27,490,951 shares on draw at the opening pools (see quote-trade.test.ts).
    assert.equal(positions[0]!.shares, 27_490_951n);
    const s = settleMarket(pools, positions, 'draw');
    // L = 50 USDC, fee = 2.5, D = 47.5: the only winner gets 10 + 47.5 = 57.5 USDC, dust 0.
    assert.equal(s.losingPool, 50n * USDC);
    assert.equal(s.fee, 2_500_000n);
    assert.deepEqual(s.payouts.map((p) => [p.id, p.kind, p.amount]), [
      ['w2', 'settlement', 57_500_000n],
      ['w1', 'lost', 0n],
      ['w3', 'lost', 0n],
    ]);
    assertBalanced(s);
  });

  it('refuses an outcome the market lacks, and books that do not add up', () => {
    const positions = [{ id: 1, outcome: 'yes', stake: USDC, shares: USDC }] as const;
    const pools = poolsFor(positions);
    assert.throws(() => settleMarket(pools, positions, 'draw'), { status: 400, message: 'Invalid outcome' });
    assert.throws(() => settleMarket(marketPools(openingSeeds('yesno')), positions, 'yes'), /stakes on yes add up to 1000000 units but the pool holds 0/);
    const twice = [positions[0], positions[0]];
    assert.throws(() => settleMarket(poolsFor(twice), twice, 'yes'), /listed twice/);
    const drawOnBinary = [{ id: 1, outcome: 'draw', stake: USDC, shares: USDC }] as const;
    assert.throws(() => settleMarket(pools, drawOnBinary, 'yes'), /not an outcome of this market/);
  });
});

describe('settleMarket properties', () => {
  const positionArb = (outcomes: readonly Outcome[]) =>
    fc.record({
      outcome: fc.constantFrom(...outcomes),
      stake: fc.oneof(fc.bigInt({ min: USDC, max: 100n * USDC }), fc.bigInt({ min: USDC, max: 10n ** 13n })),
      shares: fc.oneof(fc.constant(0n), fc.bigInt({ min: 1n, max: 10n ** 14n })),
    });
  const marketArb = fc.boolean().chain((three) => {
    const outcomes: readonly Outcome[] = three ? ['yes', 'no', 'draw'] : ['yes', 'no'];
    return fc.record({
      three: fc.constant(three),
      positions: fc.array(positionArb(outcomes), { maxLength: 30 }).map((ps) => ps.map((p, i) => ({ id: i, ...p }))),
      winner: fc.constantFrom(...outcomes),
    });
  });

  it('(a) conserves money: payouts + fee + dust = T, winners get at least their stake', () => {
    fc.assert(
      fc.property(marketArb, ({ three, positions, winner }) => {
        const pools = poolsFor(positions, three);
        const s = settleMarket(pools, positions, winner);
        assert.equal(s.total, poolTotals(pools).real);
        assertBalanced(s);
        const winners = s.payouts.filter((p) => p.kind === 'settlement');
        if (s.mode === 'resolved') {
          assert.equal(s.fee, (s.losingPool * 500n) / 10_000n);
          // Each floor drops less than 1 unit, so the dust is below the number of winners.
          assert.ok(s.dust >= 0n && s.dust < BigInt(Math.max(winners.length, 1)));
          for (const p of s.payouts) {
            if (p.outcome === winner) assert.ok(p.kind === 'settlement' && p.amount >= p.stake);
            else assert.ok(p.kind === 'lost' && p.amount === 0n);
          }
        } else {
          assert.equal(s.mode, 'no_winners');
          assert.ok(positions.filter((p) => p.outcome === winner).every((p) => p.shares === 0n));
          assert.equal(s.fee + s.dust, 0n);
          assert.ok(s.payouts.every((p) => p.kind === 'refund' && p.amount === p.stake));
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('(a) conserves money for markets built from real trades, positions added up per wallet', () => {
    const tradeArb = fc.record({ wallet: fc.integer({ min: 0, max: 5 }), pick: fc.nat(), stake: fc.bigInt({ min: USDC, max: 10n ** 10n }) });
    fc.assert(
      fc.property(fc.boolean(), fc.array(tradeArb, { maxLength: 25 }), fc.nat(), (three, trades, w) => {
        const outcomes: readonly Outcome[] = three ? ['yes', 'no', 'draw'] : ['yes', 'no'];
        let pools = marketPools(openingSeeds(three ? 'threeway' : 'yesno'));
        const book = new Map<string, { id: string; outcome: Outcome; stake: bigint; shares: bigint }>();
        for (const t of trades) {
          const outcome = outcomes[t.pick % outcomes.length]!;
          const q = quoteTrade(pools, outcome, t.stake);
          pools = q.poolsAfter;
          const id = `${t.wallet}:${outcome}`;
          const p = book.get(id) ?? { id, outcome, stake: 0n, shares: 0n };
          book.set(id, { ...p, stake: p.stake + q.stake, shares: p.shares + q.shares });
        }
        const winner = outcomes[w % outcomes.length]!;
        const s = settleMarket(pools, [...book.values()], winner);
        assertBalanced(s);
        assert.ok(s.payouts.filter((p) => p.outcome === winner).every((p) => p.amount >= p.stake));
      }),
      { numRuns: 500 },
    );
  });
});
