import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { IdempotentRequest } from '../src/market/auth/idempotency.ts';
import { inTransaction } from '../src/market/market-transaction.ts';
import { createMarket } from '../src/market/markets/markets.admin.ts';
import { poolsOf } from '../src/market/markets/market-row-pools.ts';
import { quoteTrade, type Outcome } from '../src/market/pricing/index.ts';
import { placeTrade } from '../src/market/trading/place-trade.ts';
import { placeTradesIn, type CommittedTrade, type TradeRequest, type TradeResult } from '../src/market/trading/place-trades.ts';
import { createTradeBatcher } from '../src/market/trading/trade-batcher.ts';
import { depositToWallet } from '../src/market/wallets/deposit.ts';
import { HttpError } from '../src/shared/errors.ts';
import type { DatabaseHandle } from '../src/storage/database.ts';
import { addr, assertBooksBalanced, manualClock, marketDatabase, USDC } from './helpers/market.ts';

const messageOf = (e: unknown) => (e instanceof HttpError ? `${e.status} ${e.message}` : String(e));

describe('group commit of trades (one transaction per batch, across markets)', () => {
  let h: DatabaseHandle;
  const clock = manualClock(Date.now());
  const end = () => new Date(clock.now() + 7 * 86_400_000).toISOString();
  const newMarket = (title: string, market_type: 'yesno' | 'threeway' = 'yesno') =>
    createMarket(h.db, clock, { title, category: 'test', market_type, end_date: end() });
  const fund = (w: string, usdc: bigint) => depositToWallet(h.db, clock, { wallet: w, amount: usdc * USDC });

  before(async () => {
    h = await marketDatabase();
  });
  after(() => h.close());

  it('answers a batch exactly as the same trades placed one by one, and a refused trade fails none of its neighbours', async () => {
    const batched = await newMarket('Batched', 'threeway');
    const single = await newMarket('One by one', 'threeway');
    const a = addr(0xa1);
    const b = addr(0xa2);
    const poor = addr(0xa3);
    await fund(a, 100n);
    await fund(b, 100n);
    const plan: { wallet: string; side: string; amount: bigint }[] = [
      { wallet: a, side: 'yes', amount: 10n * USDC },
      { wallet: poor, side: 'yes', amount: 5n * USDC }, // no money: Insufficient balance
      { wallet: b, side: 'draw', amount: 7n * USDC },
      { wallet: a, side: 'maybe', amount: 2n * USDC }, // Invalid side
      { wallet: b, side: 'no', amount: USDC / 2n }, // Minimum trade is 1 USDC
      { wallet: a, side: 'no', amount: 85n * USDC },
      { wallet: a, side: 'yes', amount: 6n * USDC }, // 5 USDC left: Insufficient balance
      { wallet: b, side: 'yes', amount: 3n * USDC },
    ];
    const settled = await inTransaction(h.db, (trx) =>
      placeTradesIn(trx, clock, plan.map((p) => ({ ...p, marketId: batched.id, idempotency: null }))),
    );
    assert.deepEqual(
      settled.map((s) => (s.ok ? 'ok' : messageOf(s.error))),
      ['ok', '400 Insufficient balance', 'ok', '400 Invalid side', '400 Minimum trade is 1 USDC', 'ok', '400 Insufficient balance', 'ok'],
    );

    // The same trades one at a time on a twin market, from twin wallets with the same money.
    const twins = new Map([
      [a, addr(0xb1)],
      [b, addr(0xb2)],
      [poor, addr(0xb3)],
    ]);
    await fund(twins.get(a)!, 100n);
    await fund(twins.get(b)!, 100n);
    const alone: (TradeResult | string)[] = [];
    for (const p of plan) {
      alone.push(await placeTrade(h.db, clock, { ...p, wallet: twins.get(p.wallet)!, marketId: single.id }).catch(messageOf));
    }
    const strip = (r: TradeResult | string) => (typeof r === 'string' ? r : { ...r, trade_id: 0, market_id: 0 });
    assert.deepEqual(
      settled.map((s) => (s.ok ? strip((s.answer.body as { data: TradeResult }).data) : messageOf(s.error))),
      alone.map(strip),
    );
    const [m1, m2] = await Promise.all([batched.id, single.id].map((id) => h.db.selectFrom('markets').selectAll().where('id', '=', id).executeTakeFirstOrThrow()));
    for (const c of ['pool_yes', 'pool_no', 'pool_draw', 'shares_yes', 'shares_no', 'shares_draw', 'escrow', 'volume', 'trade_count'] as const) {
      assert.equal(m1![c], m2![c], c);
    }
    await assertBooksBalanced(h.db);
  });

  it('places concurrent trades on one market in few transactions, each priced as if placed in id order', async () => {
    const m = await newMarket('Crowded');
    const wallets = Array.from({ length: 12 }, (_, i) => addr(0x100 + i));
    await Promise.all(wallets.map((w) => fund(w, 50n)));
    const batches: CommittedTrade[][] = [];
    const trades = createTradeBatcher({ db: h.db, clock, onCommitted: (t) => void batches.push([...t]) });
    const requests: TradeRequest[] = wallets.flatMap((w, i) =>
      [1n, 2n, 3n, 4n, 5n].map((k) => ({ wallet: w, marketId: m.id, side: (i + Number(k)) % 3 ? 'yes' : 'no', amount: k * USDC, idempotency: null })),
    );
    const answers = await Promise.all(requests.map((r) => trades.place(r)));
    assert.equal(answers.length, 60);
    assert.ok(batches.length < 60, `${batches.length} transactions for 60 trades`);
    assert.equal(batches.flat().length, 60);

    // Replay in id order with the pricing module: every stored trade and every answer agrees.
    const rows = await h.db.selectFrom('trades').selectAll().where('market_id', '=', m.id).orderBy('id').execute();
    const market = await h.db.selectFrom('markets').selectAll().where('id', '=', m.id).executeTakeFirstOrThrow();
    let pools = poolsOf({ ...market, pool_yes: 0n, pool_no: 0n, pool_draw: 0n });
    const byId = new Map(answers.map((a) => [(a.body as { data: TradeResult }).data.trade_id, (a.body as { data: TradeResult }).data]));
    for (const r of rows) {
      const q = quoteTrade(pools, r.outcome as Outcome, r.amount);
      assert.equal(r.shares, q.shares);
      assert.equal(r.price_yes_after, q.pricesAfter.yes);
      const answer = byId.get(r.id)!;
      assert.equal(answer.new_yes_price, q.pricesAfter.yes);
      assert.equal(answer.pool.yes_pool, Number(q.poolsAfter.yes!.real) / 1e6);
      pools = q.poolsAfter;
    }
    assert.equal(market.trade_count, 60);
    assert.equal(market.pool_yes + market.pool_no, market.volume);
    for (const w of wallets) {
      const row = await h.db.selectFrom('wallets').select('balance').where('address', '=', w).executeTakeFirstOrThrow();
      assert.equal(row.balance, 35n * USDC);
    }
    await assertBooksBalanced(h.db);
  });

  it('places concurrent trades on several markets in few transactions, each market priced as if its trades ran in id order', async () => {
    const markets = [await newMarket('Spread A'), await newMarket('Spread B'), await newMarket('Spread C', 'threeway')];
    const wallets = Array.from({ length: 8 }, (_, i) => addr(0x200 + i));
    await Promise.all(wallets.map((w) => fund(w, 40n)));
    const batches: CommittedTrade[][] = [];
    const trades = createTradeBatcher({ db: h.db, clock, onCommitted: (t) => void batches.push([...t]) });
    // Each wallet stakes 1+2+...+6 = 21 USDC on the markets in turn, one request on a market that
    // does not exist, and one more than it has left.
    const requests: TradeRequest[] = wallets.flatMap((w, i) => [
      ...[1n, 2n, 3n, 4n, 5n, 6n].map((k) => ({
        wallet: w,
        marketId: markets[(i + Number(k)) % 3]!.id,
        side: (['yes', 'no', 'draw'] as const)[(i + Number(k)) % 3]!,
        amount: k * USDC,
        idempotency: null,
      })),
      { wallet: w, marketId: 999_998, side: 'yes', amount: USDC, idempotency: null },
      { wallet: w, marketId: markets[i % 3]!.id, side: 'yes', amount: 20n * USDC, idempotency: null },
    ]);
    const results = await Promise.allSettled(requests.map((r) => trades.place(r)));
    const outcome = results.map((r) => (r.status === 'fulfilled' ? 'ok' : messageOf(r.reason)));
    assert.deepEqual(outcome, wallets.flatMap(() => [...Array<string>(6).fill('ok'), '404 Market not found', '400 Insufficient balance']));
    assert.ok(batches.length < 48, `${batches.length} transactions for 48 trades`);
    assert.equal(batches.flat().length, 48);
    assert.ok(batches.some((b) => new Set(b.map((t) => t.marketId)).size > 1), 'a batch spans markets');

    const answers = new Map(
      results.flatMap((r) => (r.status === 'fulfilled' ? [(r.value.body as { data: TradeResult }).data] : [])).map((d) => [d.trade_id, d]),
    );
    for (const m of markets) {
      const rows = await h.db.selectFrom('trades').selectAll().where('market_id', '=', m.id).orderBy('id').execute();
      const market = await h.db.selectFrom('markets').selectAll().where('id', '=', m.id).executeTakeFirstOrThrow();
      let pools = poolsOf({ ...market, pool_yes: 0n, pool_no: 0n, pool_draw: 0n });
      for (const r of rows) {
        const q = quoteTrade(pools, r.outcome as Outcome, r.amount);
        assert.equal(r.shares, q.shares);
        assert.equal(r.price_yes_after, q.pricesAfter.yes);
        assert.equal(answers.get(r.id)!.new_yes_price, q.pricesAfter.yes);
        assert.equal(answers.get(r.id)!.market_id, m.id);
        pools = q.poolsAfter;
      }
      assert.equal(market.trade_count, rows.length);
      assert.equal(market.escrow, rows.reduce((s, r) => s + r.amount, 0n));
    }
    for (const w of wallets) {
      const row = await h.db.selectFrom('wallets').select('balance').where('address', '=', w).executeTakeFirstOrThrow();
      assert.equal(row.balance, 19n * USDC);
    }
    await assertBooksBalanced(h.db);
  });

  it('keeps Idempotency-Keys exact inside and across batches', async () => {
    const m = await newMarket('Keys');
    const w = addr(0x301);
    await fund(w, 20n);
    const trades = createTradeBatcher({ db: h.db, clock });
    const key = (k: string, sha = 'body-1'): IdempotentRequest => ({ principal: w, route: 'pool.trade', key: k, requestSha256: sha });
    const r = (k: IdempotentRequest | null, amount = 2n * USDC): TradeRequest => ({ wallet: w, marketId: m.id, side: 'yes', amount, idempotency: k });
    const results = await Promise.allSettled([
      trades.place(r(key('k1'))),
      trades.place(r(key('k1'))), // the same request again, in the same tick: waits and replays
      trades.place(r(key('k1', 'body-2'))), // the same key with another body
      trades.place(r(key('k2'), 500n * USDC)), // refused: the key is not remembered
      trades.place(r(null)),
    ]);
    const [first, again, other, refused, plain] = results;
    assert.equal(first.status, 'fulfilled');
    assert.equal(again.status, 'fulfilled');
    if (first.status !== 'fulfilled' || again.status !== 'fulfilled') return;
    assert.equal(first.value.replayed, false);
    assert.equal(again.value.replayed, true);
    assert.deepEqual(again.value.body, first.value.body);
    assert.equal(other.status === 'rejected' && messageOf(other.reason), '409 Idempotency-Key reused with a different body');
    assert.equal(refused.status === 'rejected' && messageOf(refused.reason), '400 Insufficient balance');
    assert.equal(plain.status, 'fulfilled');
    // The refused key runs as new once the wallet can pay.
    const retried = await trades.place(r(key('k2'), 3n * USDC));
    assert.equal(retried.replayed, false);
    const n = await h.db.selectFrom('trades').select('id').where('market_id', '=', m.id).execute();
    assert.equal(n.length, 3);
    const stored = await h.db.selectFrom('idempotency_keys').select(['key', 'response_json']).where('principal', '=', w).orderBy('key').execute();
    assert.deepEqual(stored.map((s) => s.key), ['k1', 'k2']);
    assert.deepEqual(JSON.parse(stored[0]!.response_json!), first.value.body);
    await assertBooksBalanced(h.db);
  });

  it("when the batch's statement fails for one trade, places the others, keeps their Idempotency-Keys and forgets the failed one's", async () => {
    const m = await newMarket('Faulty');
    const w = addr(0x601);
    await fund(w, 50n);
    const trades = createTradeBatcher({ db: h.db, clock });
    const key = (k: string): IdempotentRequest => ({ principal: w, route: 'pool.trade', key: k, requestSha256: `sha-${k}` });
    const r = (k: string, amount: bigint): TradeRequest => ({ wallet: w, marketId: m.id, side: 'yes', amount, idempotency: key(k) });
    // A stake of exactly 7.777777 USDC fails in the database, as an unexpected failure would.
    await sql`create function fail_one_trade() returns trigger language plpgsql as $$
      begin if new.amount = 7777777 then raise exception 'injected failure'; end if; return new; end $$`.execute(h.db);
    await sql`create trigger fail_one_trade before insert on trades for each row execute function fail_one_trade()`.execute(h.db);
    let results: PromiseSettledResult<unknown>[];
    try {
      // One batch: the first is written, the second fails, the third is placed again alone.
      results = await Promise.allSettled([trades.place(r('f1', 2n * USDC)), trades.place(r('f2', 7_777_777n)), trades.place(r('f3', 3n * USDC))]);
    } finally {
      await sql`drop trigger fail_one_trade on trades`.execute(h.db);
      await sql`drop function fail_one_trade()`.execute(h.db);
    }
    assert.deepEqual(
      results.map((x) => (x.status === 'fulfilled' ? 'ok' : /injected failure/.test(String(x.reason)) ? 'injected failure' : messageOf(x.reason))),
      ['ok', 'injected failure', 'ok'],
    );
    // The failed trade's key is not remembered: the same request runs as new once the fault is gone.
    const again = await trades.place(r('f2', 7_777_777n));
    assert.equal(again.replayed, false);
    const stored = await h.db.selectFrom('idempotency_keys').select(['key', 'response_status']).where('principal', '=', w).orderBy('key').execute();
    assert.deepEqual(stored, [
      { key: 'f1', response_status: 200 },
      { key: 'f2', response_status: 200 },
      { key: 'f3', response_status: 200 },
    ]);
    await assertBooksBalanced(h.db);
  });

  it('refuses every trade of a batch on a market that does not exist', async () => {
    const w = addr(0x401);
    await fund(w, 5n);
    const trades = createTradeBatcher({ db: h.db, clock });
    const results = await Promise.allSettled([1, 2].map(() => trades.place({ wallet: w, marketId: 999_999, side: 'yes', amount: USDC, idempotency: null })));
    assert.deepEqual(results.map((x) => (x.status === 'rejected' ? messageOf(x.reason) : 'ok')), ['404 Market not found', '404 Market not found']);
  });
});
