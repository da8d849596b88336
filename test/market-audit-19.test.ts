import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { marketAuditSuite, marketOverSocket } from './helpers/market-socket.ts';
import { tradeBody } from './helpers/market-client.ts';

/**
 * The nineteenth audit of the market API (docs/api-decisions.md, "Market API: nineteenth
 * audit"): a bot's lists while trades arrive, then updown, custom and threeway markets end to end
 * with every number recomputed in bigint from docs/pool-arithmetic.md. Runs on PGlite, and on
 * PostgreSQL with DATABASE_URL.
 */
describe('market API, nineteenth audit (over HTTP)', () => {
  const { base, call, admin, ok, trader, market, endIn } = marketAuditSuite();
  // Each test signs with seconds of its own (a signature is accepted once).
  let send: ReturnType<typeof marketOverSocket>['send'];
  beforeEach(() => {
    send = marketOverSocket(base).send;
  });
  type Trader = Awaited<ReturnType<typeof trader>>;
  const trade = (w: Trader, marketId: number, side: string, amount: number) =>
    send(w.viaKey, { method: 'POST', url: '/api/pool/trade', body: tradeBody(w.wallet, marketId, side, amount) });

  describe('a bot signing from the document', () => {
    const unsigned = 'Invalid signature: the signed path must be the URL path without the query string';
    it('signing the path with its query string is named, for an API key and a wallet, and moves nothing', async () => {
      const m = (await market('aud19q')).id;
      const w = await trader('50');
      const body = tradeBody(w.wallet, m, 'yes', 2);
      const url = '/api/pool/trade?client=bot&v=2';
      assert.deepEqual(await send(w.viaKey, { method: 'POST', url, body, signedPath: url }), { status: 401, body: { success: false, error: unsigned } });
      assert.deepEqual(await send(w.viaWallet, { method: 'POST', url, body, signedPath: url }), {
        status: 401,
        body: { success: false, error: 'Invalid signature: the path in x-wallet-message must be the URL path without the query string' },
      });
      // Another wrong path, or a query string signed that was not sent, stays a plain refusal.
      for (const signedPath of ['/api/pool/trades', '/api/pool/trade?client=other']) {
        for (const signer of [w.viaKey, w.viaWallet]) {
          assert.deepEqual(await send(signer, { method: 'POST', url, body, signedPath }), { status: 401, body: { success: false, error: 'Invalid signature' } });
        }
      }
      assert.deepEqual(await send(w.viaKey, { method: 'POST', url: '/api/pool/trade', body, signedPath: '/api/pool/trade?client=bot' }), {
        status: 401,
        body: { success: false, error: 'Invalid signature' },
      });
      assert.equal((await ok(call('GET', `/api/pool/balance/${w.wallet}`))).data.balance, 50);
      // Signed as the document says (the path alone), the same request trades, by key and by wallet.
      await ok(send(w.viaKey, { method: 'POST', url, body }));
      await ok(send(w.viaWallet, { method: 'POST', url, body }));
      assert.equal((await ok(call('GET', `/api/pool/balance/${w.wallet}`))).data.balance, 46);
    });
  });

  describe('updown, custom and threeway markets end to end, recomputed in bigint', () => {
    const U = 1_000_000n;
    const usdc = (units: bigint) => Number(units) / 1e6;
    /** docs/pool-arithmetic.md: shares of a stake of `a` units on an outcome priced by S against O. */
    const sharesOf = (a: bigint, S: bigint, O: bigint) => BigInt(Math.floor(Number(a) + Number(O) * Math.log1p(Number(a) / Number(S))));
    type Book = { pools: Record<string, bigint>; seeds: Record<string, bigint>; shares: Map<string, bigint>; stakes: Map<string, bigint> };
    const book = (seeds: Record<string, bigint>): Book => ({ pools: Object.fromEntries(Object.keys(seeds).map((o) => [o, 0n])), seeds, shares: new Map(), stakes: new Map() });
    const total = (r: Record<string, bigint>) => Object.values(r).reduce((x, y) => x + y, 0n);
    const priceOf = (b: Book, o: string) => Number(b.pools[o]! + b.seeds[o]!) / Number(total(b.pools) + total(b.seeds));
    /** Places the stake in the model and checks the service's answer against it. */
    const stake = async (b: Book, w: Trader, id: number, o: string, a: bigint) => {
      const S = b.pools[o]! + b.seeds[o]!;
      const shares = sharesOf(a, S, total(b.pools) + total(b.seeds) - S);
      b.pools[o]! += a;
      const key = `${w.wallet}:${o}`;
      b.shares.set(key, (b.shares.get(key) ?? 0n) + shares);
      b.stakes.set(key, (b.stakes.get(key) ?? 0n) + a);
      const d = (await ok(trade(w, id, o, usdc(a)))).data;
      assert.deepEqual([d.shares, d.price, d.new_yes_price, d.new_no_price, d.new_draw_price], [usdc(shares), Number(a) / Number(shares), priceOf(b, 'yes'), priceOf(b, 'no'), 'draw' in b.pools ? priceOf(b, 'draw') : undefined]);
    };
    const ledger = async (w: Trader, type: string) => (await ok(call('GET', `/api/pool/ledger/${w.wallet}?type=${type}`))).data.map((e: { amount: number }) => e.amount);

    it('an updown market opened at 0.7 and a custom one with its labels, resolved and cancelled', async () => {
      const [a, b] = [await trader('100'), await trader('100')];
      const up = await ok(admin('POST', '/admin/markets', { title: 'Aud19 BTC up today', category: 'aud19', market_type: 'updown', end_date: endIn(1), opening_prices: { yes: 0.7, no: 0.3 } }), 201);
      assert.deepEqual([up.outcome_labels, up.seeds], [{ yes: 'Up', no: 'Down' }, { yes: 70, no: 30 }]);
      const ub = book({ yes: 70n * U, no: 30n * U });
      await stake(ub, a, up.id, 'yes', 5n * U);
      await stake(ub, b, up.id, 'no', 3_500_001n);
      assert.deepEqual(await call('GET', `/api/markets/${up.id}/price`).then((r) => [r.body.data.market_type, r.body.data.yes_price, r.body.data.no_price]), ['updown', priceOf(ub, 'yes'), priceOf(ub, 'no')]);
      assert.deepEqual(await admin('POST', `/admin/markets/${up.id}/resolve`, { outcome: 'up' }), { status: 400, body: { error: 'invalid outcome: must be one of yes, no' } });
      const settled = (await ok(admin('POST', `/admin/markets/${up.id}/resolve`, { outcome: 'no' }))).settlement;
      // Only b holds `no`: it gets its stake and all of D; H is its shares, so no dust.
      const L = 5n * U;
      const fee = (L * 500n) / 10000n;
      assert.deepEqual(settled, { mode: 'resolved', outcome: 'no', total: 8.500001, paid: usdc(3_500_001n + L - fee), fee: usdc(fee), dust: 0, positions: 2, positions_paid: 1 });
      assert.deepEqual(await ledger(b, 'settlement'), [usdc(3_500_001n + L - fee)]);
      assert.deepEqual(await ledger(a, 'settlement'), []);

      const cu = await ok(admin('POST', '/admin/markets', { title: 'Aud19 Lakers or Celtics', category: 'aud19', market_type: 'custom', end_date: endIn(1), outcome_labels: { yes: 'Lakers', no: 'Celtics ☘' } }), 201);
      const cb = book({ yes: 50n * U, no: 50n * U });
      await stake(cb, a, cu.id, 'yes', 2n * U);
      await stake(cb, a, cu.id, 'no', 1_250_000n);
      await stake(cb, b, cu.id, 'no', 4n * U);
      assert.equal((await ok(call('GET', `/api/portfolio/${a.wallet}`))).data.length, 2, 'one position per outcome');
      assert.deepEqual((await ok(admin('POST', `/admin/markets/${cu.id}/cancel`))).settlement, { mode: 'cancelled', outcome: null, total: 7.25, paid: 7.25, fee: 0, dust: 0, positions: 3, positions_paid: 3 });
      assert.deepEqual((await ledger(a, 'refund')).sort(), [1.25, 2]);
      assert.deepEqual(await ledger(b, 'refund'), [4]);
      assert.deepEqual((await ok(call('GET', `/api/portfolio/${a.wallet}`))).data, [], 'settled markets leave the portfolio');
      assert.deepEqual(await trade(a, cu.id, 'yes', 1), { status: 400, body: { success: false, error: 'Market not active' } });
      // a: lost 5 on updown, refunded on custom; b: won L - fee, refunded.
      const stats = (await ok(call('GET', `/api/portfolio/${a.wallet}/stats`))).data;
      assert.deepEqual([stats.realized_pnl, stats.settled_markets, stats.won_markets, stats.win_rate], [-5, 2, 0, 0]);
      const profile = (await ok(call('GET', `/api/users/${b.wallet}`))).data;
      assert.deepEqual([profile.total_pnl, profile.total_volume, profile.markets_traded, profile.win_rate], [usdc(L - fee), 7.500001, 2, 0.5]);
      assert.equal(Number((await ok(call('GET', `/api/pool/balance/${b.wallet}`))).data.balance), usdc(100n * U + L - fee));
    });

    it('a threeway market: fee on the two losing pools, payouts by shares, the dust to the protocol', async () => {
      const [a, b, c] = [await trader('50'), await trader('50'), await trader('50')];
      const m = await ok(admin('POST', '/admin/markets', { title: 'Aud19 derby', category: 'aud19', market_type: 'threeway', end_date: endIn(1) }), 201);
      assert.deepEqual(m.seeds, { yes: 33.333334, no: 33.333333, draw: 33.333333 });
      const tb = book({ yes: 33_333_334n, no: 33_333_333n, draw: 33_333_333n });
      await stake(tb, a, m.id, 'yes', 1_000_001n);
      await stake(tb, b, m.id, 'yes', 2_333_333n);
      await stake(tb, c, m.id, 'yes', 1_700_000n);
      await stake(tb, c, m.id, 'no', 3_100_000n);
      await stake(tb, a, m.id, 'draw', 2_200_000n);
      const W = tb.pools.yes!;
      const L = total(tb.pools) - W;
      const fee = (L * 500n) / 10000n;
      const D = L - fee;
      const H = [a, b, c].reduce((h, w) => h + tb.shares.get(`${w.wallet}:yes`)!, 0n);
      const payouts = [a, b, c].map((w) => tb.stakes.get(`${w.wallet}:yes`)! + (D * tb.shares.get(`${w.wallet}:yes`)!) / H);
      const dust = D - payouts.reduce((x, y) => x + y, 0n) + W;
      assert.ok(dust > 0n, 'this market leaves dust');
      const settled = (await ok(admin('POST', `/admin/markets/${m.id}/resolve`, { outcome: 'yes' }))).settlement;
      assert.deepEqual(settled, { mode: 'resolved', outcome: 'yes', total: usdc(total(tb.pools)), paid: usdc(payouts.reduce((x, y) => x + y, 0n)), fee: usdc(fee), dust: usdc(dust), positions: 5, positions_paid: 3 });
      for (const [i, w] of [a, b, c].entries()) assert.deepEqual(await ledger(w, 'settlement'), [usdc(payouts[i]!)]);
    });

    it('a market resolved to the side nobody took refunds every stake, no fee; the ledger filters each type', async () => {
      const [a, b] = [await trader('20'), await trader('20')];
      const m = (await market('aud19lose')).id;
      await ok(trade(a, m, 'yes', 10));
      await ok(trade(b, m, 'yes', 2.5));
      assert.deepEqual((await ok(admin('POST', `/admin/markets/${m}/resolve`, { outcome: 'no' }))).settlement, { mode: 'no_winners', outcome: 'no', total: 12.5, paid: 12.5, fee: 0, dust: 0, positions: 2, positions_paid: 2 });
      await ok(send(a.viaKey, { method: 'POST', url: '/api/pool/withdraw', body: { wallet_addr: a.wallet, amount: 3 } }));
      assert.deepEqual(await ledger(a, 'deposit'), [20]);
      assert.deepEqual(await ledger(a, 'trade'), [-10]);
      assert.deepEqual(await ledger(a, 'refund'), [10]);
      assert.deepEqual(await ledger(a, 'settlement'), []);
      assert.deepEqual(await ledger(a, 'withdraw'), [], 'a pending withdrawal is locked, not yet a ledger movement');
      const bal = (await ok(call('GET', `/api/pool/balance/${a.wallet}`))).data;
      assert.deepEqual([bal.balance, bal.locked, bal.available], [20, 3, 17]);
      for (const type of ['bogus', 'TRADE', '', 'withdrawal']) {
        assert.deepEqual(await call('GET', `/api/pool/ledger/${a.wallet}?type=${type}`), { status: 400, body: { success: false, error: 'Invalid type: must be one of deposit, withdraw, trade, settlement, refund' } });
      }
      const stats = (await ok(call('GET', `/api/portfolio/${b.wallet}/stats`))).data;
      assert.deepEqual([stats.realized_pnl, stats.settled_markets, stats.won_markets, stats.win_rate], [0, 1, 0, 0]);
    });

    it('limit 0, 101, -1, 1.5, abc and empty on every paged list: the same 400', async () => {
      const w = await trader('5');
      for (const limit of ['0', '101', '-1', '1.5', 'abc', '']) {
        for (const path of ['/api/markets', '/api/events', '/api/trades', `/api/pool/ledger/${w.wallet}`, '/api/users/leaderboard', '/api/search?q=aud19']) {
          assert.deepEqual(await call('GET', `${path}${path.includes('?') ? '&' : '?'}limit=${limit}`), { status: 400, body: { success: false, error: 'Invalid limit: must be between 1 and 100' } }, `${path} limit=${limit}`);
        }
      }
    });
  });

  describe('lists read while trades arrive', () => {
    it('a page of trades and its total are one reading: never more rows than the total says', async () => {
      const m = (await market('aud19race')).id;
      const w = await trader('1000');
      const lists = [`/api/trades?market=${m}&limit=100`, `/api/trades?wallet=${w.wallet}&limit=100`, `/api/trades?market=${m}&wallet=${w.wallet}&limit=100`];
      const mismatches: string[] = [];
      for (let round = 0; round < 20; round++) {
        const reads = lists.flatMap((path) => [call('GET', path), call('GET', path)]);
        const [, ...answers] = await Promise.all([ok(trade(w, m, round % 2 ? 'yes' : 'no', 1)), ...reads]);
        for (const [i, a] of answers.entries()) {
          assert.equal(a.status, 200);
          if (a.body.data.length !== a.body.total) mismatches.push(`${lists[Math.floor(i / 2)]}: ${a.body.data.length} rows, total ${a.body.total}`);
        }
      }
      assert.deepEqual(mismatches, []);
    });

    it('a page of events and its total are one reading while events are created', async () => {
      const mismatches: string[] = [];
      for (let round = 0; round < 15; round++) {
        const [, ...answers] = await Promise.all([
          ok(admin('POST', '/admin/events', { title: `Aud19 race ${round} ${Math.random()}`, category: 'aud19' }), 201),
          ...Array.from({ length: 4 }, () => call('GET', '/api/events?limit=100')),
        ]);
        for (const a of answers) if (a.body.data.length !== a.body.total) mismatches.push(`${a.body.data.length} rows, total ${a.body.total}`);
      }
      assert.deepEqual(mismatches, []);
    });

    it('the trending list is the markets list sorted by trending, active markets, first ten', async () => {
      const w = await trader('100');
      const made: number[] = [];
      for (let i = 0; i < 3; i++) made.push((await market('aud19trend')).id);
      for (const [i, amount] of [[0, 1], [2, 9]] as const) await ok(trade(w, made[i]!, 'no', amount));
      const trending = (await ok(call('GET', '/api/markets/trending'))).data;
      const sorted = (await ok(call('GET', '/api/markets?sort=trending&status=active&limit=10'))).data;
      assert.deepEqual(trending, sorted);
      const ids = trending.map((m: { id: number }) => m.id);
      assert.ok(ids.indexOf(made[2]) < ids.indexOf(made[0]), 'more 24-hour volume first');
    });
  });
});
