import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createMarket } from '../src/market/markets/markets.admin.ts';
import { cancelMarket } from '../src/market/settlement/cancel-market.ts';
import { resolveMarket } from '../src/market/settlement/resolve-market.ts';
import { placeTrade } from '../src/market/trading/place-trade.ts';
import { depositToWallet } from '../src/market/wallets/deposit.ts';
import type { DatabaseHandle } from '../src/storage/database.ts';
import { addr, assertBooksBalanced, manualClock, marketDatabase, USDC } from './helpers/market.ts';

// Settlement writes every payout of a market in a few statements (src/market/ledger/post-payouts.ts):
// these hold it to what one movement per paid position wrote, for markets of hundreds of positions.
describe('market settlement of many positions', () => {
  let h: DatabaseHandle;
  const clock = manualClock();
  const end = () => new Date(clock.now() + 30 * 86_400_000).toISOString();
  let nextWallet = 0x1000;

  before(async () => {
    h = await marketDatabase();
  });
  after(() => h.close());

  /** A market with `n` fresh wallets staking: even ones yes, odd ones no, every third on both sides too. */
  async function marketWithTraders(n: number, title: string) {
    const m = await createMarket(h.db, clock, { title, category: 'test', market_type: 'yesno', end_date: end() });
    const wallets = Array.from({ length: n }, () => addr(nextWallet++));
    for (const w of wallets) await depositToWallet(h.db, clock, { wallet: w, amount: 50n * USDC, note: 'test' });
    for (let i = 0; i < n; i++) {
      await placeTrade(h.db, clock, { wallet: wallets[i]!, marketId: m.id, side: i % 2 ? 'no' : 'yes', amount: 2n * USDC + BigInt(i) });
      if (i % 3 === 0) await placeTrade(h.db, clock, { wallet: wallets[i]!, marketId: m.id, side: i % 2 ? 'yes' : 'no', amount: USDC });
    }
    return { m, wallets };
  }

  const balances = async (wallets: readonly string[]) =>
    new Map((await h.db.selectFrom('wallets').select(['address', 'balance']).where('address', 'in', wallets).execute()).map((r) => [r.address, r.balance]));
  const positionsOf = (marketId: number) =>
    h.db.selectFrom('positions').select(['wallet', 'outcome', 'shares', 'cost_basis', 'payout']).where('market_id', '=', marketId).orderBy('wallet').orderBy('outcome').execute();

  it('pays every winner its stake plus its floor share of the distributed pool, one movement each, in address order', async () => {
    const { m, wallets } = await marketWithTraders(240, 'Many winners');
    const before = await balances(wallets);
    const positions = await positionsOf(m.id);
    const market = await h.db.selectFrom('markets').selectAll().where('id', '=', m.id).executeTakeFirstOrThrow();
    // market-math.md: L = T - W, fee = floor(L * 5%), D = L - fee, payout = stake + floor(D * shares / H).
    const W = positions.filter((p) => p.outcome === 'yes').reduce((s, p) => s + p.cost_basis, 0n);
    const T = positions.reduce((s, p) => s + p.cost_basis, 0n);
    const H = positions.filter((p) => p.outcome === 'yes').reduce((s, p) => s + p.shares, 0n);
    assert.equal(market.escrow, T);
    const L = T - W;
    const fee = (L * 500n) / 10_000n;
    const D = L - fee;
    const expected = new Map(positions.map((p) => [`${p.wallet}/${p.outcome}`, p.outcome === 'yes' ? p.cost_basis + (D * p.shares) / H : 0n]));

    const s = await resolveMarket(h.db, clock, m.id, 'yes');
    assert.equal(s.positions, positions.length);
    assert.equal(s.positions_paid, positions.filter((p) => p.outcome === 'yes').length);
    assert.equal(s.fee, fee);

    const after = await positionsOf(m.id);
    for (const p of after) assert.equal(p.payout, expected.get(`${p.wallet}/${p.outcome}`), `${p.wallet} ${p.outcome}`);
    const now = await balances(wallets);
    for (const w of wallets) {
      const won = after.filter((p) => p.wallet === w).reduce((sum, p) => sum + p.payout!, 0n);
      assert.equal(now.get(w), before.get(w)! + won, w);
    }

    const entries = await h.db
      .selectFrom('ledger_entries')
      .select(['movement_id', 'account', 'amount', 'wallet', 'note'])
      .where('market_id', '=', m.id)
      .where('type', '=', 'settlement')
      .orderBy('id')
      .execute();
    const winners = after.filter((p) => p.outcome === 'yes');
    assert.equal(entries.length, 2 * winners.length);
    winners.forEach((p, i) => {
      const [out, into] = [entries[2 * i]!, entries[2 * i + 1]!];
      assert.deepEqual(
        [out.account, out.amount, into.account, into.amount, into.wallet, into.note],
        [`escrow:${m.id}`, -p.payout!, `wallet:${p.wallet}`, p.payout!, p.wallet, `won yes on market ${m.id}`],
      );
      assert.equal(out.movement_id, into.movement_id);
    });
    assert.equal(new Set(entries.map((e) => e.movement_id)).size, winners.length);
    const settled = await h.db.selectFrom('markets').select(['escrow', 'status']).where('id', '=', m.id).executeTakeFirstOrThrow();
    assert.deepEqual(settled, { escrow: 0n, status: 'resolved' });
    await assertBooksBalanced(h.db);
  });

  it('refunds every stake of a cancelled market, a two-sided wallet in two movements', async () => {
    const { m, wallets } = await marketWithTraders(150, 'Many refunds');
    const before = await balances(wallets);
    const positions = await positionsOf(m.id);
    const s = await cancelMarket(h.db, clock, m.id);
    assert.equal(s.positions_paid, positions.length);
    const now = await balances(wallets);
    for (const w of wallets) {
      const staked = positions.filter((p) => p.wallet === w).reduce((sum, p) => sum + p.cost_basis, 0n);
      assert.equal(now.get(w), before.get(w)! + staked, w);
    }
    const refunds = await h.db.selectFrom('ledger_entries').select(['wallet', 'amount']).where('market_id', '=', m.id).where('type', '=', 'refund').where('account', 'like', 'wallet:%').orderBy('id').execute();
    assert.deepEqual(
      refunds.map((r) => [r.wallet, r.amount]),
      positions.map((p) => [p.wallet, p.cost_basis]),
    );
    await assertBooksBalanced(h.db);
  });

  it('settles two markets of the same wallets at once, and a trade racing them, without a deadlock or a lost unit', async () => {
    const a = await marketWithTraders(120, 'Shared A');
    const b = await createMarket(h.db, clock, { title: 'Shared B', category: 'test', market_type: 'yesno', end_date: end() });
    const c = await createMarket(h.db, clock, { title: 'Shared C', category: 'test', market_type: 'yesno', end_date: end() });
    for (let i = 0; i < a.wallets.length; i++) await placeTrade(h.db, clock, { wallet: a.wallets[i]!, marketId: b.id, side: i % 2 ? 'yes' : 'no', amount: USDC });
    const results = await Promise.allSettled([
      resolveMarket(h.db, clock, a.m.id, 'no'),
      cancelMarket(h.db, clock, b.id),
      placeTrade(h.db, clock, { wallet: a.wallets[0]!, marketId: c.id, side: 'yes', amount: USDC }),
      placeTrade(h.db, clock, { wallet: a.wallets[a.wallets.length - 1]!, marketId: c.id, side: 'no', amount: USDC }),
    ]);
    assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    const statuses = await h.db.selectFrom('markets').select(['id', 'status', 'escrow']).where('id', 'in', [a.m.id, b.id]).orderBy('id').execute();
    assert.deepEqual(statuses.map((r) => [r.status, r.escrow]), [['resolved', 0n], ['cancelled', 0n]]);
    await assertBooksBalanced(h.db);
  });
});
