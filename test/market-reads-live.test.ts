import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createMarket, featureMarket } from '../src/market/markets/markets.admin.ts';
import { resolveMarket } from '../src/market/settlement/resolve-market.ts';
import { placeTrade } from '../src/market/trading/place-trade.ts';
import { depositToWallet } from '../src/market/wallets/deposit.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { USDC, addr, manualClock } from './helpers/market.ts';

interface Body {
  success: boolean;
  data: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  total?: number;
}

/** The read endpoints over data written by the real trading and settlement code (not fixtures). */
describe('market reads over placeTrade and settlement', () => {
  const clock = manualClock(Date.parse('2026-06-01T00:00:00Z'));
  let t: TestApp;
  const A = addr(0xa1);
  const B = addr(0xb2);
  let open: number;
  let settled: number;
  const trades: Awaited<ReturnType<typeof placeTrade>>[] = [];

  const get = async (url: string): Promise<Body> => {
    const r = await t.app.inject({ url });
    assert.equal(r.statusCode, 200, url);
    return r.json() as Body;
  };

  before(async () => {
    t = await startTestApp({ clock });
    const db = t.deps.db;
    await depositToWallet(db, clock, { wallet: A, amount: 1000n * USDC });
    await depositToWallet(db, clock, { wallet: B, amount: 1000n * USDC });
    const end = new Date(clock.now() + 30 * 86_400_000).toISOString();
    open = (await createMarket(db, clock, { title: 'Open market', category: 'crypto', market_type: 'yesno', end_date: end })).id;
    settled = (await createMarket(db, clock, { title: 'Settled market', category: 'crypto', market_type: 'yesno', end_date: end })).id;
    clock.advance(3_600_000);
    trades.push(await placeTrade(db, clock, { wallet: A, marketId: open, side: 'yes', amount: 40n * USDC }));
    clock.advance(2 * 86_400_000);
    trades.push(await placeTrade(db, clock, { wallet: B, marketId: open, side: 'no', amount: 15n * USDC }));
    await placeTrade(db, clock, { wallet: A, marketId: settled, side: 'yes', amount: 10n * USDC });
    await placeTrade(db, clock, { wallet: B, marketId: settled, side: 'no', amount: 20n * USDC });
    clock.advance(3_600_000);
    await resolveMarket(db, clock, settled, 'yes');
    await featureMarket(db, clock, open);
    clock.advance(60_000);
  });

  after(async () => {
    await t?.close();
  });

  it('shows the prices and volumes the trades produced', async () => {
    const last = trades[1]!;
    const price = (await get(`/api/markets/${open}/price`)).data;
    assert.equal(price.yes_price, last.new_yes_price);
    assert.equal(price.no_price, last.new_no_price);
    assert.equal(price.volume, 55);
    assert.equal(price.volume_24h, 15);
    assert.equal(price.liquidity, last.pool.yes_pool + last.pool.no_pool);
    assert.equal(price.change['1d'], last.new_yes_price - trades[0]!.new_yes_price);
    assert.equal(price.change['1w'], last.new_yes_price - 0.5);
    const list = await get('/api/markets?sort=volume');
    assert.deepEqual(
      list.data.map((m: { id: number }) => m.id),
      [open, settled],
    );
    const tradesList = await get(`/api/trades?market=${open}`);
    assert.equal(tradesList.total, 2);
    assert.equal(tradesList.data[0].id, last.trade_id);
    assert.equal(tradesList.data[0].shares, last.shares);
    assert.equal(tradesList.data[0].price, last.price);
    assert.equal((await get('/api/markets/featured')).data.id, open);
  });

  it('marks portfolios and profiles from the settled books', async () => {
    const portfolio = (await get(`/api/portfolio/${A}`)).data;
    assert.equal(portfolio.length, 1, 'the settled market is no longer open');
    assert.equal(portfolio[0].market_id, open);
    assert.equal(portfolio[0].shares, trades[0]!.shares);
    assert.equal(portfolio[0].current_price, trades[1]!.new_yes_price);
    const stats = (await get(`/api/portfolio/${A}/stats`)).data;
    // A won the settled market: 10 back plus 20 - 5% fee (A holds every yes share).
    assert.equal(stats.realized_pnl, 19);
    assert.equal(stats.won_markets, 1);
    assert.equal(stats.settled_markets, 1);
    assert.equal(stats.win_rate, 1);
    const b = (await get(`/api/users/${B}`)).data;
    assert.equal(b.win_rate, 0);
    assert.equal(b.total_volume, 35);
    const board = (await get('/api/users/leaderboard')).data;
    assert.equal(board[0].wallet, A);
    assert.equal(board[0].total_pnl, stats.total_pnl);
    assert.equal((await get(`/api/users/${A}`)).data.rank, 1);
  });
});
