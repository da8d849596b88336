import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'kysely';
import { auditBooks } from '../src/market/audit/audit-books.ts';
import { createEvent } from '../src/market/events/events.admin.ts';
import { createMarket } from '../src/market/markets/markets.admin.ts';
import { cancelMarket } from '../src/market/settlement/cancel-market.ts';
import { resolveMarket } from '../src/market/settlement/resolve-market.ts';
import { placeTrade } from '../src/market/trading/place-trade.ts';
import { depositToWallet } from '../src/market/wallets/deposit.ts';
import { HttpError } from '../src/shared/errors.ts';
import type { DatabaseHandle } from '../src/storage/database.ts';
import { addr, assertBooksBalanced, manualClock, marketDatabase, USDC } from './helpers/market.ts';

const DAY = 86_400_000;

describe('market money: trades, settlement, cancellation', () => {
  let h: DatabaseHandle;
  const clock = manualClock();
  const A = addr(0xa);
  const B = addr(0xb);
  const C = addr(0xc);

  before(async () => {
    h = await marketDatabase();
  });
  after(() => h.close());
  beforeEach(async () => {
    await assertBooksBalanced(h.db);
  });

  const balanceOf = async (w: string) =>
    (await h.db.selectFrom('wallets').select('balance').where('address', '=', w).executeTakeFirstOrThrow()).balance;
  const end = () => new Date(clock.now() + 30 * DAY).toISOString();
  const rejects = (p: Promise<unknown>, status: number, message: string) =>
    assert.rejects(p, (e: unknown) => e instanceof HttpError && e.status === status && e.message === message);

  it('places trades, resolves yes and pays to the micro-USDC (hand-recomputed)', async () => {
    for (const w of [A, B, C]) await depositToWallet(h.db, clock, { wallet: w, amount: 100n * USDC, note: 'test' });
    const m = await createMarket(h.db, clock, { title: 'Hand computed', category: 'test', market_type: 'yesno', end_date: end() });
    assert.equal(m.seed_yes, 50n * USDC);

    // shares = floor(a + O ln(1 + a/S)) with S the side's priced pool and O the rest:
    // A 10 yes: S=50, O=50 -> 19.116077; B 20 no: S=50, O=60 -> 40.188334;
    // C 5 yes: S=60, O=70 -> 10.602989; A 3 no: S=70, O=65 -> 5.727672.
    const t1 = await placeTrade(h.db, clock, { wallet: A.toUpperCase().replace('0X', '0x'), marketId: m.id, side: 'yes', amount: 10n * USDC });
    assert.equal(t1.shares, 19.116077);
    assert.equal(t1.amount, 10);
    assert.equal(t1.price, 10 / 19.116077);
    assert.equal(t1.new_yes_price, 60 / 110);
    assert.equal(t1.new_no_price, 50 / 110);
    assert.equal(t1.new_draw_price, undefined);
    assert.equal(t1.remaining_balance, 90);
    assert.deepEqual(t1.pool, { yes_pool: 10, no_pool: 0, total_volume: 10 });
    assert.equal((await placeTrade(h.db, clock, { wallet: B, marketId: m.id, side: 'no', amount: 20n * USDC })).shares, 40.188334);
    assert.equal((await placeTrade(h.db, clock, { wallet: C, marketId: m.id, side: 'yes', amount: 5n * USDC })).shares, 10.602989);
    const t4 = await placeTrade(h.db, clock, { wallet: A, marketId: m.id, side: 'no', amount: 3n * USDC });
    assert.equal(t4.shares, 5.727672);
    assert.equal(t4.remaining_balance, 87);
    assert.deepEqual(t4.pool, { yes_pool: 15, no_pool: 23, total_volume: 38 });
    await assertBooksBalanced(h.db);

    // W = 15, L = 23, fee = 1.15, D = 21.85, H = 19.116077 + 10.602989 = 29.719066.
    // A: 10 + floor(21.85e6 * 19116077 / 29719066) = 10 + 14.054488 = 24.054488
    // C:  5 + floor(21.85e6 * 10602989 / 29719066) =  5 +  7.795511 = 12.795511; dust 0.000001.
    const s = await resolveMarket(h.db, clock, m.id, 'yes');
    assert.equal(s.mode, 'resolved');
    assert.equal(s.total, 38n * USDC);
    assert.equal(s.fee, 1_150_000n);
    assert.equal(s.dust, 1n);
    assert.equal(s.paid, 15n * USDC + 14_054_488n + 7_795_511n);
    assert.equal(await balanceOf(A), 87n * USDC + 24_054_488n);
    assert.equal(await balanceOf(B), 80n * USDC);
    assert.equal(await balanceOf(C), 95n * USDC + 12_795_511n);

    const positions = await h.db.selectFrom('positions').selectAll().where('market_id', '=', m.id).orderBy('wallet').orderBy('outcome').execute();
    assert.deepEqual(
      positions.map((p) => [p.wallet, p.outcome, p.cost_basis, p.payout]),
      [
        [A, 'no', 3n * USDC, 0n],
        [A, 'yes', 10n * USDC, 24_054_488n],
        [B, 'no', 20n * USDC, 0n],
        [C, 'yes', 5n * USDC, 12_795_511n],
      ],
    );
    const ledger = await h.db.selectFrom('ledger_entries').select(['type', 'account', 'amount']).where('market_id', '=', m.id).where('type', 'in', ['settlement', 'fee']).where('account', 'not like', 'escrow:%').orderBy('id').execute();
    assert.deepEqual(ledger, [
      { type: 'settlement', account: `wallet:${A}`, amount: 24_054_488n },
      { type: 'settlement', account: `wallet:${C}`, amount: 12_795_511n },
      { type: 'fee', account: 'fees', amount: 1_150_001n },
    ]);
    const market = await h.db.selectFrom('markets').selectAll().where('id', '=', m.id).executeTakeFirstOrThrow();
    assert.equal(market.status, 'resolved');
    assert.equal(market.resolved_outcome, 'yes');
    assert.equal(market.escrow, 0n);
    assert.deepEqual([market.settled_paid, market.settled_fee, market.settled_dust], [s.paid, 1_150_000n, 1n]);
    const report = await auditBooks(h.db);
    assert.equal(report.totals.fees, 1_150_001n);
    assert.equal(report.totals.net_external, 300n * USDC);

    await rejects(resolveMarket(h.db, clock, m.id, 'no'), 400, 'Market already resolved');
    await rejects(cancelMarket(h.db, clock, m.id), 400, 'Market already resolved');
    await rejects(placeTrade(h.db, clock, { wallet: A, marketId: m.id, side: 'yes', amount: USDC }), 400, 'Market not active');
  });

  it('checks a trade in the documented order', async () => {
    const m = await createMarket(h.db, clock, { title: 'Order of checks', category: 'test', market_type: 'yesno', end_date: end(), status: 'pending' });
    const poor = addr(0x50);
    const trade = (over: Partial<{ marketId: number; side: string; amount: bigint; wallet: string }>) =>
      placeTrade(h.db, clock, { wallet: poor, marketId: m.id, side: 'yes', amount: USDC, ...over });
    await rejects(trade({ marketId: 999_999, side: 'bogus', amount: 0n }), 404, 'Market not found');
    await rejects(trade({ side: 'bogus', amount: 0n }), 400, 'Market not active');
    await h.db.updateTable('markets').set({ status: 'active', end_date: new Date(clock.now()) }).where('id', '=', m.id).execute();
    await rejects(trade({ side: 'bogus', amount: 0n }), 400, 'Market has ended');
    await h.db.updateTable('markets').set({ end_date: new Date(clock.now() + DAY) }).where('id', '=', m.id).execute();
    await rejects(trade({ side: 'bogus', amount: 0n }), 400, 'Invalid side');
    await rejects(trade({ side: 'draw', amount: 0n }), 400, 'Invalid side');
    await rejects(trade({ side: 'YES', amount: 0n }), 400, 'Invalid side');
    await rejects(trade({ amount: 999_999n }), 400, 'Minimum trade is 1 USDC');
    await rejects(trade({}), 400, 'Insufficient balance');
    await depositToWallet(h.db, clock, { wallet: poor, amount: 2n * USDC });
    await h.db.updateTable('wallets').set({ locked: 1_500_000n }).where('address', '=', poor).execute();
    await rejects(trade({}), 400, 'Insufficient balance');
    await h.db.updateTable('wallets').set({ locked: 1_000_000n }).where('address', '=', poor).execute();
    const ok = await trade({});
    assert.equal(ok.remaining_balance, 0);
    await rejects(trade({}), 400, 'Insufficient balance');
    await h.db.updateTable('wallets').set({ locked: 0n }).where('address', '=', poor).execute();
    await assertBooksBalanced(h.db);
  });

  it('settles a threeway market on draw, with draw prices and pools', async () => {
    const ev = await createEvent(h.db, clock, { title: 'Derby', category: 'sports', end_date: end() });
    const m = await createMarket(h.db, clock, {
      title: 'Derby result',
      market_type: 'threeway',
      end_date: end(),
      event_id: ev.id,
      opening_prices: { yes: 0.5, no: 0.3, draw: 0.2 },
      seed_liquidity: 30,
      outcome_labels: { yes: 'Home', no: 'Away', draw: 'Draw' },
    });
    assert.equal(m.category, 'sports');
    assert.deepEqual([m.seed_yes, m.seed_no, m.seed_draw], [15n * USDC, 9n * USDC, 6n * USDC]);
    const D1 = addr(0xd1);
    const D2 = addr(0xd2);
    const D3 = addr(0xd3);
    for (const w of [D1, D2, D3]) await depositToWallet(h.db, clock, { wallet: w, amount: 50n * USDC });
    const t = await placeTrade(h.db, clock, { wallet: D1, marketId: m.id, side: 'draw', amount: 4n * USDC });
    // S = 6, O = 24: shares = 4 + 24 ln(1 + 4/6).
    assert.equal(t.shares, Number(BigInt(Math.floor(4e6 + 24e6 * Math.log1p(4 / 6)))) / 1e6);
    assert.equal(t.new_draw_price, 10 / 34);
    assert.deepEqual(t.pool, { yes_pool: 0, no_pool: 0, draw_pool: 4, total_volume: 4 });
    await placeTrade(h.db, clock, { wallet: D2, marketId: m.id, side: 'yes', amount: 7n * USDC });
    await placeTrade(h.db, clock, { wallet: D3, marketId: m.id, side: 'no', amount: 11n * USDC });
    await rejects(resolveMarket(h.db, clock, m.id, 'maybe'), 400, 'invalid outcome: must be one of yes, no, draw');
    const s = await resolveMarket(h.db, clock, m.id, 'draw');
    // The only winner gets 4 + (18 - 0.9) = 21.1; fee 0.9, no dust.
    assert.deepEqual([s.total, s.fee, s.dust, s.paid], [22n * USDC, 900_000n, 0n, 21_100_000n]);
    assert.equal(await balanceOf(D1), 46n * USDC + 21_100_000n);
    const event = await h.db.selectFrom('events').select('status').where('id', '=', ev.id).executeTakeFirstOrThrow();
    assert.equal(event.status, 'resolved');
    await assertBooksBalanced(h.db);
  });

  it('refunds everyone when nobody holds the winning outcome, and on cancellation', async () => {
    const E1 = addr(0xe1);
    const E2 = addr(0xe2);
    for (const w of [E1, E2]) await depositToWallet(h.db, clock, { wallet: w, amount: 20n * USDC });
    const ev = await createEvent(h.db, clock, { title: 'Two markets', category: 'tech' });
    const nobody = await createMarket(h.db, clock, { title: 'Nobody wins', category: 'tech', market_type: 'updown', end_date: end(), event_id: ev.id });
    const cancelled = await createMarket(h.db, clock, { title: 'Cancelled one', category: 'tech', market_type: 'yesno', end_date: end(), event_id: ev.id });
    await placeTrade(h.db, clock, { wallet: E1, marketId: nobody.id, side: 'no', amount: 3n * USDC });
    await placeTrade(h.db, clock, { wallet: E2, marketId: nobody.id, side: 'no', amount: 2_500_000n });
    const s = await resolveMarket(h.db, clock, nobody.id, 'yes');
    assert.equal(s.mode, 'no_winners');
    assert.deepEqual([s.fee, s.dust, s.paid], [0n, 0n, 5_500_000n]);
    assert.equal(await balanceOf(E1), 20n * USDC);
    assert.equal(await balanceOf(E2), 20n * USDC);
    // The event still has an open market.
    assert.equal((await h.db.selectFrom('events').select('status').where('id', '=', ev.id).executeTakeFirstOrThrow()).status, 'active');
    await placeTrade(h.db, clock, { wallet: E1, marketId: cancelled.id, side: 'yes', amount: 4n * USDC });
    await placeTrade(h.db, clock, { wallet: E1, marketId: cancelled.id, side: 'no', amount: 1n * USDC });
    await placeTrade(h.db, clock, { wallet: E2, marketId: cancelled.id, side: 'yes', amount: 6n * USDC });
    const c = await cancelMarket(h.db, clock, cancelled.id);
    assert.deepEqual([c.mode, c.total, c.fee, c.dust, c.paid, c.positions_paid], ['cancelled', 11n * USDC, 0n, 0n, 11n * USDC, 3]);
    assert.equal(await balanceOf(E1), 20n * USDC);
    assert.equal(await balanceOf(E2), 20n * USDC);
    const refunds = await h.db.selectFrom('ledger_entries').select(sql<number>`count(*)::int`.as('n')).where('market_id', '=', cancelled.id).where('type', '=', 'refund').where('account', 'like', 'wallet:%').executeTakeFirstOrThrow();
    assert.equal(refunds.n, 3);
    assert.equal((await h.db.selectFrom('events').select('status').where('id', '=', ev.id).executeTakeFirstOrThrow()).status, 'resolved');
    await rejects(cancelMarket(h.db, clock, cancelled.id), 400, 'Market already cancelled');
    await rejects(resolveMarket(h.db, clock, cancelled.id, 'yes'), 400, 'Market already cancelled');
    await rejects(cancelMarket(h.db, clock, 999_999), 404, 'Market not found');
    await rejects(
      createMarket(h.db, clock, { title: 'Late', market_type: 'yesno', end_date: end(), event_id: ev.id }),
      400,
      `invalid event_id: event ${ev.id} is resolved`,
    );
    await assertBooksBalanced(h.db);
  });

  it('refuses an unbalanced movement at the database too, and the audit sees tampering', async () => {
    await assert.rejects(
      h.db.transaction().execute(async (trx) => {
        await trx.insertInto('ledger_entries').values({ movement_id: '00000000-0000-4000-8000-000000000001', account: 'fees', amount: 5n, type: 'fee' }).execute();
      }),
      /does not sum to zero/,
    );
    await h.db.updateTable('wallets').set({ balance: sql`balance + 1` }).where('address', '=', A).execute();
    const report = await auditBooks(h.db);
    assert.equal(report.balanced, false);
    assert.ok(report.problems.some((p) => p.includes(A)), report.problems.join('\n'));
    await h.db.updateTable('wallets').set({ balance: sql`balance - 1` }).where('address', '=', A).execute();
  });
});
