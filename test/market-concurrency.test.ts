import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createMarket } from '../src/market/markets/markets.admin.ts';
import { cancelMarket } from '../src/market/settlement/cancel-market.ts';
import { resolveMarket } from '../src/market/settlement/resolve-market.ts';
import { placeTrade } from '../src/market/trading/place-trade.ts';
import { createTradeBatcher } from '../src/market/trading/trade-batcher.ts';
import { depositToWallet } from '../src/market/wallets/deposit.ts';
import { HttpError } from '../src/shared/errors.ts';
import type { DatabaseHandle } from '../src/storage/database.ts';
import { addr, assertBooksBalanced, manualClock, marketDatabase, onServer, USDC } from './helpers/market.ts';

// Truly parallel only on a PostgreSQL server (PGlite has one connection and serializes them).
const skip = onServer ? false : 'needs DATABASE_URL (PGlite runs transactions one at a time)';

const messageOf = (r: PromiseSettledResult<unknown>) =>
  r.status === 'rejected' ? (r.reason instanceof HttpError ? `${r.reason.status} ${r.reason.message}` : String(r.reason)) : 'ok';

function tally(results: PromiseSettledResult<unknown>[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of results) out[messageOf(r)] = (out[messageOf(r)] ?? 0) + 1;
  return out;
}

describe('market money under concurrency', { skip }, () => {
  let h: DatabaseHandle;
  const clock = manualClock(Date.now());
  const end = () => new Date(clock.now() + 7 * 86_400_000).toISOString();
  const newMarket = (title: string) => createMarket(h.db, clock, { title, category: 'test', market_type: 'yesno', end_date: end() });

  before(async () => {
    h = await marketDatabase();
  });
  after(() => h.close());

  it("holds up only the trades of a market another transaction holds locked: the batch's other markets go on", async () => {
    const busy = await newMarket('Locked by a long transaction');
    const free = await newMarket('Free');
    const w = addr(0x501);
    await depositToWallet(h.db, clock, { wallet: w, amount: 20n * USDC });
    const trades = createTradeBatcher({ db: h.db, clock });
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    // As a settlement of the market would: its row locked until the transaction ends.
    const holder = h.db.transaction().execute(async (trx) => {
      await trx.selectFrom('markets').select('id').where('id', '=', busy.id).forUpdate().execute();
      locked();
      await released;
    });
    await isLocked;
    // Placed in the same turn, so offered to the same batch.
    const onBusy = trades.place({ wallet: w, marketId: busy.id, side: 'yes', amount: 2n * USDC, idempotency: null });
    const onBusyToo = trades.place({ wallet: w, marketId: busy.id, side: 'no', amount: 4n * USDC, idempotency: null });
    const onFree = trades.place({ wallet: w, marketId: free.id, side: 'no', amount: 3n * USDC, idempotency: null });
    // Answered while the other market is still locked (a batch waiting for that lock never answers).
    const freeAnswer = await onFree;
    assert.equal((freeAnswer.body as { data: { market_id: number } }).data.market_id, free.id);
    // And so is a trade on the free market placed after it, while the locked market's trades wait.
    await trades.place({ wallet: w, marketId: free.id, side: 'yes', amount: USDC, idempotency: null });
    release();
    await holder;
    const answers = await Promise.all([onBusy, onBusyToo]);
    assert.deepEqual(
      answers.map((a) => (a.body as { data: { market_id: number } }).data.market_id),
      [busy.id, busy.id],
    );
    const rows = await h.db.selectFrom('trades').select(['market_id', 'amount']).where('wallet', '=', w).orderBy('id').execute();
    assert.deepEqual(
      rows.map((r) => [r.market_id, r.amount]),
      [
        [free.id, 3n * USDC],
        [free.id, USDC],
        [busy.id, 2n * USDC],
        [busy.id, 4n * USDC],
      ],
    );
    const wallet = await h.db.selectFrom('wallets').select('balance').where('address', '=', w).executeTakeFirstOrThrow();
    assert.equal(wallet.balance, 10n * USDC);
    await assertBooksBalanced(h.db);
  });

  it('lets exactly the covered trades of one wallet through, across markets', async () => {
    const w = addr(0x1);
    await depositToWallet(h.db, clock, { wallet: w, amount: 10n * USDC });
    const m1 = await newMarket('Concurrent one');
    const m2 = await newMarket('Concurrent two');
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) =>
        placeTrade(h.db, clock, { wallet: w, marketId: i % 2 ? m1.id : m2.id, side: i % 3 ? 'yes' : 'no', amount: USDC }),
      ),
    );
    assert.deepEqual(tally(results), { ok: 10, '400 Insufficient balance': 40 });
    const wallet = await h.db.selectFrom('wallets').selectAll().where('address', '=', w).executeTakeFirstOrThrow();
    assert.equal(wallet.balance, 0n);
    const trades = await h.db.selectFrom('trades').select('id').where('wallet', '=', w).execute();
    assert.equal(trades.length, 10);
    await assertBooksBalanced(h.db);
  });

  it('keeps every trade of many wallets on one market (no lost pool updates)', async () => {
    const m = await newMarket('Crowded market');
    const wallets = Array.from({ length: 25 }, (_, i) => addr(0x100 + i));
    await Promise.all(wallets.map((w) => depositToWallet(h.db, clock, { wallet: w, amount: 50n * USDC })));
    const results = await Promise.allSettled(
      wallets.flatMap((w, i) =>
        [1n, 2n, 3n, 4n].map((k) => placeTrade(h.db, clock, { wallet: w, marketId: m.id, side: (i + Number(k)) % 2 ? 'yes' : 'no', amount: k * USDC })),
      ),
    );
    assert.deepEqual(tally(results), { ok: 100 });
    const row = await h.db.selectFrom('markets').selectAll().where('id', '=', m.id).executeTakeFirstOrThrow();
    assert.equal(row.trade_count, 100);
    assert.equal(row.volume, 25n * 10n * USDC);
    assert.equal(row.pool_yes + row.pool_no, row.volume);
    assert.equal(row.escrow, row.volume);
    for (const w of wallets) {
      const b = await h.db.selectFrom('wallets').select('balance').where('address', '=', w).executeTakeFirstOrThrow();
      assert.equal(b.balance, 40n * USDC);
    }
    await assertBooksBalanced(h.db);
  });

  it('pays a market once when two resolvers (and a canceller) race', async () => {
    const m = await newMarket('Racing resolvers');
    const a = addr(0x201);
    const b = addr(0x202);
    await depositToWallet(h.db, clock, { wallet: a, amount: 10n * USDC });
    await depositToWallet(h.db, clock, { wallet: b, amount: 10n * USDC });
    await placeTrade(h.db, clock, { wallet: a, marketId: m.id, side: 'yes', amount: 4n * USDC });
    await placeTrade(h.db, clock, { wallet: b, marketId: m.id, side: 'no', amount: 6n * USDC });
    const results = await Promise.allSettled([
      resolveMarket(h.db, clock, m.id, 'yes'),
      resolveMarket(h.db, clock, m.id, 'yes'),
      resolveMarket(h.db, clock, m.id, 'no'),
      cancelMarket(h.db, clock, m.id),
    ]);
    const t = tally(results);
    assert.equal(t.ok, 1, JSON.stringify(t));
    assert.equal(results.length - 1, (t['400 Market already resolved'] ?? 0) + (t['400 Market already cancelled'] ?? 0), JSON.stringify(t));
    const paid = await h.db.selectFrom('ledger_entries').select('id').where('market_id', '=', m.id).where('type', 'in', ['settlement', 'refund']).where('account', 'like', 'wallet:%').execute();
    assert.ok(paid.length === 1 || paid.length === 2, `one payout movement per paid position, got ${paid.length}`);
    await assertBooksBalanced(h.db);
  });

  it('never leaves a trade unsettled when trades race a resolve', async () => {
    const m = await newMarket('Trades versus resolve');
    const wallets = Array.from({ length: 20 }, (_, i) => addr(0x300 + i));
    await Promise.all(wallets.map((w) => depositToWallet(h.db, clock, { wallet: w, amount: 20n * USDC })));
    await placeTrade(h.db, clock, { wallet: wallets[0]!, marketId: m.id, side: 'yes', amount: USDC });
    const trades = wallets.flatMap((w, i) =>
      [0, 1].map(() => placeTrade(h.db, clock, { wallet: w, marketId: m.id, side: i % 2 ? 'yes' : 'no', amount: 2n * USDC })),
    );
    const resolve = resolveMarket(h.db, clock, m.id, 'yes');
    const results = await Promise.allSettled([...trades, resolve]);
    assert.equal(results.at(-1)!.status, 'fulfilled');
    const t = tally(results.slice(0, -1));
    assert.equal((t.ok ?? 0) + (t['400 Market not active'] ?? 0), trades.length, JSON.stringify(t));
    const unpaid = await h.db.selectFrom('positions').select('wallet').where('market_id', '=', m.id).where('payout', 'is', null).execute();
    assert.deepEqual(unpaid, []);
    const row = await h.db.selectFrom('markets').selectAll().where('id', '=', m.id).executeTakeFirstOrThrow();
    assert.equal(row.trade_count, 1 + (t.ok ?? 0));
    assert.equal(row.escrow, 0n);
    await assertBooksBalanced(h.db);
  });
});
