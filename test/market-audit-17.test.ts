import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { marketAuditSuite, marketOverSocket } from './helpers/market-socket.ts';
import { tradeBody, type MarketSigner } from './helpers/market-client.ts';
import { sseReader } from './helpers/sse-reader.ts';

/**
 * The seventeenth audit of the market API (docs/api-decisions.md, "Market API: seventeenth
 * audit"): an operator's and a trading bot's whole journeys over a real socket, every number
 * recomputed in bigint from /work/shared/spec/market-math.md (pool-arithmetic.md here), the books
 * checked after every step. Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */
describe('market API, seventeenth audit (over HTTP)', () => {
  const { base, call, admin, ok, trader, endIn } = marketAuditSuite();
  // Signed requests take a second each from the last 25 (no signature is used twice): a fresh
  // supply per test, whose wallets are its own.
  let send: ReturnType<typeof marketOverSocket>['send'];
  beforeEach(() => {
    send = marketOverSocket(base).send;
  });
  type Trader = Awaited<ReturnType<typeof trader>>;

  // ---- the arithmetic of market-math.md, written from the document in bigint ----
  const U = 1_000_000n;
  const units = (usdc: number) => BigInt(Math.round(usdc * 1e6));
  const usdc = (u: bigint) => Number(u) / 1e6;
  type Pools = Record<string, { p: bigint; v: bigint }>;
  const price = (pools: Pools, o: string) => {
    const all = Object.values(pools).reduce((s, x) => s + x.p + x.v, 0n);
    return Number(pools[o]!.p + pools[o]!.v) / Number(all);
  };
  /** shares = floor(a + O * ln(1 + a / S)), then P[o] += a. */
  const stakeOn = (pools: Pools, o: string, a: bigint) => {
    const s = pools[o]!.p + pools[o]!.v;
    const all = Object.values(pools).reduce((acc, x) => acc + x.p + x.v, 0n);
    const other = all - s;
    const shares = BigInt(Math.floor(Number(a) + Number(other) * Math.log1p(Number(a) / Number(s))));
    pools[o]!.p += a;
    return shares;
  };
  /** Each winner's payout: stake + floor(D * shares / H), fee = floor(L * 5%), dust to the protocol. */
  const settle = (pools: Pools, w: string, positions: { key: string; o: string; stake: bigint; shares: bigint }[]) => {
    const T = Object.values(pools).reduce((s, x) => s + x.p, 0n);
    const W = pools[w]!.p;
    const H = positions.filter((p) => p.o === w).reduce((s, p) => s + p.shares, 0n);
    const L = T - W;
    const fee = (L * 500n) / 10000n;
    const D = L - fee;
    const payouts = new Map<string, bigint>();
    let paidShare = 0n;
    for (const p of positions) {
      if (p.o !== w) continue;
      const part = (D * p.shares) / H;
      paidShare += part;
      payouts.set(p.key, (payouts.get(p.key) ?? 0n) + p.stake + part);
    }
    return { T, fee, dust: D - paidShare, payouts, paid: [...payouts.values()].reduce((s, x) => s + x, 0n) };
  };

  const balanceOf = async (w: Trader) =>
    (await ok(call('GET', `/api/pool/balance/${w.wallet}`))).data as { balance: number; locked: number; available: number; total_deposited: number; total_withdrawn: number };
  const trade = (w: Trader, marketId: number, side: string, amount: number, headers: Record<string, string> = {}, signer: MarketSigner = w.viaKey) =>
    send(signer, { method: 'POST', url: '/api/pool/trade', body: tradeBody(w.wallet, marketId, side, amount), headers });
  const audit = async () => {
    const books = await ok(admin('GET', '/admin/audit'));
    assert.deepEqual([books.balanced, books.problems], [true, []], 'GET /admin/audit');
    return books;
  };

  describe('the operator', () => {
    it('creates an event and its markets, and every read shows them at once', async () => {
      const category = `op17${Math.floor(Math.random() * 1e6)}`;
      const ev = await ok(admin('POST', '/admin/events', { title: `Audit 17 ✓ event ${category}`, category, description: 'ünïcode 🚀' }), 201);
      const yesno = await ok(
        admin('POST', '/admin/markets', {
          title: `Audit17 yes-no ${category}`,
          event_id: ev.id,
          market_type: 'yesno',
          end_date: endIn(10),
          opening_prices: { yes: 0.3, no: 0.7 },
          seed_liquidity: '200',
        }),
        201,
      );
      assert.deepEqual([yesno.category, yesno.seeds, yesno.prices], [category, { yes: 60, no: 140 }, { yes: 0.3, no: 0.7 }]);
      const three = await ok(
        admin('POST', '/admin/markets', { title: `Audit17 three ${category}`, event_id: ev.id, market_type: 'threeway', end_date: endIn(20), seed_liquidity: 99 }),
        201,
      );
      assert.deepEqual(three.seeds, { yes: 33, no: 33, draw: 33 });
      const pending = await ok(admin('POST', '/admin/markets', { title: `Audit17 pending ${category}`, category, market_type: 'updown', end_date: endIn(5), status: 'pending' }), 201);
      // The lists show all three at once, filtered and sorted.
      const ids = async (q: string) => ((await ok(call('GET', `/api/markets?category=${category}&${q}`))).data as { id: number }[]).map((m) => m.id);
      assert.deepEqual(await ids('sort=newest'), [pending.id, three.id, yesno.id]);
      assert.deepEqual(await ids('status=pending'), [pending.id]);
      assert.deepEqual(await ids('status=active&sort=ending_soon'), [yesno.id, three.id]);
      assert.deepEqual(await ids('market_type=threeway'), [three.id]);
      const event = (await ok(call('GET', `/api/events/${ev.slug}`))).data;
      assert.deepEqual([event.markets_count, event.total_volume, event.status, event.end_date], [2, 0, 'active', three.end_date]);
      const price = (await ok(call('GET', `/api/markets/${three.id}/price`))).data;
      assert.equal(price.yes_price + price.no_price + price.draw_price, 1);
      // A pending market refuses a stake; activated, it takes one.
      const w = await trader('50');
      assert.deepEqual(await trade(w, pending.id, 'yes', 1), { status: 400, body: { success: false, error: 'Market not active' } });
      await ok(admin('POST', `/admin/markets/${pending.id}/activate`));
      assert.equal((await trade(w, pending.id, 'yes', 1)).status, 200);
      assert.deepEqual(await ids('status=pending'), []);
      await audit();
    });

    it('features a market and an event, and edits and closes a market: reads follow each write', async () => {
      const category = `op17f${Math.floor(Math.random() * 1e6)}`;
      const a = await ok(admin('POST', '/admin/markets', { title: `Audit17 A ${category}`, category, market_type: 'yesno', end_date: endIn(3) }), 201);
      const b = await ok(admin('POST', '/admin/markets', { title: `Audit17 B ${category}`, category, market_type: 'yesno', end_date: endIn(3) }), 201);
      await ok(admin('POST', `/admin/markets/${a.id}/feature`));
      assert.equal((await ok(call('GET', '/api/markets/featured'))).data.id, a.id);
      await ok(admin('POST', `/admin/markets/${b.id}/feature`));
      assert.equal((await ok(call('GET', '/api/markets/featured'))).data.id, b.id);
      assert.equal((await ok(call('GET', `/api/markets/${a.id}`))).data.featured, false);
      // Edits show at once in the market, the list and search.
      const title = `Audit17 B renamed ✓ ${category}`;
      await ok(admin('PATCH', `/admin/markets/${b.id}`, { title, description: 'now with ü' }));
      assert.equal((await ok(call('GET', `/api/markets/${b.id}`))).data.title, title);
      assert.equal((await ok(call('GET', '/api/markets/featured'))).data.title, title);
      assert.deepEqual(((await ok(call('GET', `/api/search?q=${encodeURIComponent('renamed ✓')}`))).data.markets as { id: number }[]).map((m) => m.id), [b.id]);
      // Close: end_date moved into the past stops trading at once.
      const w = await trader('10');
      assert.equal((await trade(w, a.id, 'yes', 2)).status, 200);
      await ok(admin('PATCH', `/admin/markets/${a.id}`, { end_date: new Date(Date.now() - 1000).toISOString() }));
      assert.deepEqual(await trade(w, a.id, 'no', 2), { status: 400, body: { success: false, error: 'Market has ended' } });
      const estimate = await call('POST', '/api/pool/estimate', { market_id: a.id, side: 'no', amount: 2 });
      assert.equal(estimate.status, 400);
      assert.deepEqual((await balanceOf(w)).available, 8);
      await audit();
    });

    it('resolves each outcome and cancels, paying to the micro-USDC, and every read shows it at once', async () => {
      const category = `op17r${Math.floor(Math.random() * 1e6)}`;
      const ev = await ok(admin('POST', '/admin/events', { title: `Audit17 settle ${category}`, category }), 201);
      const mk = async (market_type: string, fields: Record<string, unknown> = {}) =>
        ok(admin('POST', '/admin/markets', { title: `Audit17 ${market_type} ${category} ${Math.random()}`, event_id: ev.id, market_type, end_date: endIn(4), ...fields }), 201);
      const yesno = await mk('yesno', { opening_prices: { yes: 0.35, no: 0.65 }, seed_liquidity: '77.777777' });
      const three = await mk('threeway', { opening_prices: { yes: 0.2, no: 0.3, draw: 0.5 } });
      const noWinner = await mk('yesno');
      const cancelled = await mk('custom', { outcome_labels: { yes: 'Red', no: 'Blue' } });
      const wallets = await Promise.all([trader('100'), trader('100'), trader('100')]);
      const poolsOf = (m: { seeds: Record<string, number> }): Pools =>
        Object.fromEntries(Object.entries(m.seeds).map(([o, v]) => [o, { p: 0n, v: units(v) }]));
      const books = new Map<number, { pools: Pools; positions: { key: string; o: string; stake: bigint; shares: bigint }[] }>();
      for (const m of [yesno, three, noWinner, cancelled]) books.set(m.id, { pools: poolsOf(m), positions: [] });
      const stakes: [number, number, string, number][] = [
        [yesno.id, 0, 'yes', 3.333333],
        [yesno.id, 1, 'no', 12.5],
        [yesno.id, 2, 'yes', 7.000001],
        [yesno.id, 0, 'yes', 1],
        [three.id, 0, 'draw', 9.99],
        [three.id, 1, 'yes', 4.4],
        [three.id, 2, 'no', 1.000001],
        [three.id, 1, 'draw', 2],
        [noWinner.id, 0, 'no', 5],
        [noWinner.id, 1, 'no', 6],
        [cancelled.id, 2, 'yes', 8.8],
        [cancelled.id, 0, 'no', 1.5],
      ];
      const spent = [0n, 0n, 0n];
      for (const [marketId, who, side, amount] of stakes) {
        const b = books.get(marketId)!;
        const a = units(amount);
        const shares = stakeOn(b.pools, side, a);
        b.positions.push({ key: wallets[who]!.wallet, o: side, stake: a, shares });
        spent[who]! += a;
        const answer = await ok(trade(wallets[who]!, marketId, side, amount));
        assert.equal(answer.data.shares, usdc(shares), `shares of ${amount} on ${side}`);
        assert.equal(answer.data.price, Number(a) / Number(shares));
        assert.equal(answer.data.new_yes_price, price(b.pools, 'yes'));
        assert.equal(answer.data.new_no_price, price(b.pools, 'no'));
        if (side === 'draw' || b.pools.draw) assert.equal(answer.data.new_draw_price, price(b.pools, 'draw'));
        assert.equal(answer.data.remaining_balance, usdc(100n * U - spent[who]!));
        // The reads show the trade at once.
        const p = (await ok(call('GET', `/api/markets/${marketId}/price`))).data;
        assert.deepEqual([p.yes_price, p.no_price], [price(b.pools, 'yes'), price(b.pools, 'no')]);
        const last = (await ok(call('GET', `/api/trades?market=${marketId}&limit=1`))).data[0];
        assert.deepEqual([last.id, last.side, last.amount, last.shares], [answer.data.trade_id, side.toUpperCase(), amount, usdc(shares)]);
      }
      // Portfolio marks, recomputed.
      for (const [i, w] of wallets.entries()) {
        const positions = (await ok(call('GET', `/api/portfolio/${w.wallet}`))).data as { market_id: number; side: string; shares: number; cost_basis: number; current_price: number }[];
        const expected = new Map<string, { shares: bigint; stake: bigint; price: number }>();
        for (const [id, b] of books) {
          for (const p of b.positions.filter((x) => x.key === w.wallet)) {
            const k = `${id} ${p.o.toUpperCase()}`;
            const e = expected.get(k) ?? { shares: 0n, stake: 0n, price: price(b.pools, p.o) };
            expected.set(k, { ...e, shares: e.shares + p.shares, stake: e.stake + p.stake });
          }
        }
        assert.deepEqual(
          new Map(positions.map((p) => [`${p.market_id} ${p.side}`, { shares: p.shares, cost: p.cost_basis, price: p.current_price }])),
          new Map([...expected].map(([k, e]) => [k, { shares: usdc(e.shares), cost: usdc(e.stake), price: e.price }])),
          `portfolio of wallet ${i}`,
        );
      }
      await audit();

      // Resolve yes, draw, yes with nobody on yes (refunds), and cancel: each recomputed.
      const received = [0n, 0n, 0n];
      const check = async (m: { id: number }, how: 'resolve' | 'cancel', outcome?: string) => {
        const b = books.get(m.id)!;
        const answer = await ok(admin('POST', `/admin/markets/${m.id}/${how}`, outcome ? { outcome } : undefined));
        const T = Object.values(b.pools).reduce((s, x) => s + x.p, 0n);
        const refund = how === 'cancel' || !b.positions.some((p) => p.o === outcome);
        const r = refund
          ? { T, fee: 0n, dust: 0n, paid: T, payouts: b.positions.reduce((acc, p) => acc.set(p.key, (acc.get(p.key) ?? 0n) + p.stake), new Map<string, bigint>()) }
          : settle(b.pools, outcome!, b.positions);
        assert.deepEqual(
          [answer.settlement.total, answer.settlement.paid, answer.settlement.fee, answer.settlement.dust, answer.escrow],
          [usdc(r.T), usdc(r.paid), usdc(r.fee), usdc(r.dust), 0],
          `${how} ${outcome ?? ''} of market ${m.id}`,
        );
        assert.equal(r.paid + r.fee + r.dust, r.T);
        for (const [i, w] of wallets.entries()) {
          const got = r.payouts.get(w.wallet) ?? 0n;
          received[i]! += got;
          const entries = (await ok(call('GET', `/api/pool/ledger/${w.wallet}?type=${refund ? 'refund' : 'settlement'}`))).data as { amount: number; market_id: number }[];
          const mine = entries.filter((e) => e.market_id === m.id).reduce((s, e) => s + units(e.amount), 0n);
          assert.equal(mine, got, `wallet ${i}'s ${refund ? 'refund' : 'settlement'} on market ${m.id}`);
          assert.equal((await balanceOf(w)).balance, usdc(100n * U - spent[i]! + received[i]!), `balance of wallet ${i}`);
          const open = (await ok(call('GET', `/api/portfolio/${w.wallet}`))).data as { market_id: number }[];
          assert.ok(!open.some((p) => p.market_id === m.id), 'a settled market leaves the portfolio at once');
        }
        const read = (await ok(call('GET', `/api/markets/${m.id}/price`))).data;
        assert.equal(read.status, how === 'cancel' ? 'cancelled' : 'resolved');
        assert.equal(((await ok(call('GET', `/api/markets?status=active&category=${category}`))).data as { id: number }[]).some((x) => x.id === m.id), false);
        await audit();
      };
      await check(yesno, 'resolve', 'yes');
      await check(three, 'resolve', 'draw');
      await check(noWinner, 'resolve', 'yes');
      assert.equal((await ok(call('GET', `/api/events/${ev.id}`))).data.status, 'active', 'one market still open');
      await check(cancelled, 'cancel');
      const event = (await ok(call('GET', `/api/events/${ev.id}`))).data;
      assert.equal(event.status, 'resolved');
      assert.deepEqual(((await ok(call('GET', `/api/events?status=resolved&limit=100`))).data as { id: number }[]).some((e) => e.id === ev.id), true);
      // Settling twice is refused in the admin API's shape.
      assert.deepEqual(await admin('POST', `/admin/markets/${yesno.id}/resolve`, { outcome: 'no' }), { status: 400, body: { error: 'Market already resolved' } });
      assert.deepEqual(await admin('POST', `/admin/markets/${cancelled.id}/cancel`), { status: 400, body: { error: 'Market already cancelled' } });
      // Every market of these wallets is settled: their realized P&L is what came back minus what
      // they staked, and their win rate counts the markets their positions were paid on as won
      // (a refund is not a win).
      const wonBy = (i: number) =>
        [yesno, three].filter((m) => books.get(m.id)!.positions.some((p) => p.key === wallets[i]!.wallet && p.o === (m === yesno ? 'yes' : 'draw'))).length;
      for (const [i, w] of wallets.entries()) {
        const stats = (await ok(call('GET', `/api/portfolio/${w.wallet}/stats`))).data;
        const held = [...books].filter(([, b]) => b.positions.some((p) => p.key === w.wallet)).length;
        const pnl = usdc(received[i]! - spent[i]!);
        assert.deepEqual(
          [stats.open_positions, stats.realized_pnl, stats.unrealized_pnl, stats.total_pnl, stats.total_volume, stats.settled_markets, stats.won_markets, stats.win_rate],
          [0, pnl, 0, pnl, usdc(spent[i]!), held, wonBy(i), wonBy(i) / held],
          `stats of wallet ${i}`,
        );
        const profile = (await ok(call('GET', `/api/users/${w.wallet}`))).data;
        assert.deepEqual([profile.total_pnl, profile.total_volume, profile.markets_traded, profile.win_rate], [pnl, usdc(spent[i]!), held, wonBy(i) / held]);
      }
      // The trades stay listed after settlement.
      assert.equal((await ok(call('GET', `/api/trades?market=${yesno.id}`))).total, 4);
    });
  });
  describe('the trading bot', () => {
    it('signs both ways, quotes, and stakes exactly what the quote said', async () => {
      const m = await ok(admin('POST', '/admin/markets', { title: `Audit17 bot ${Math.random()}`, category: 'bot17', market_type: 'yesno', end_date: endIn(2) }), 201);
      const w = await trader('40');
      const time = (await ok(call('GET', '/api/time'))).data;
      assert.ok(Math.abs(time.time - Math.floor(Date.now() / 1000)) <= 2, 'GET /api/time is the server clock in unix seconds');
      const quote = (await ok(call('POST', '/api/pool/estimate', { market_id: m.id, side: 'no', amount: 6.5 }))).data;
      const viaWallet = await ok(trade(w, m.id, 'no', 6.5, {}, w.viaWallet));
      assert.deepEqual(
        [viaWallet.data.shares, viaWallet.data.price, viaWallet.data.new_yes_price, viaWallet.data.new_no_price],
        [quote.shares, quote.price, quote.new_yes_price, quote.new_no_price],
        'the trade is its quote',
      );
      const pools: Pools = { yes: { p: 0n, v: 50n * U }, no: { p: 0n, v: 50n * U } };
      assert.equal(viaWallet.data.shares, usdc(stakeOn(pools, 'no', 6_500_000n)));
      const viaKey = await ok(trade(w, m.id, 'yes', 2));
      assert.equal(viaKey.data.shares, usdc(stakeOn(pools, 'yes', 2_000_000n)));
      assert.equal(viaKey.data.remaining_balance, 31.5);
    });

    it('follows the live stream: its trade and price are the reads, and the settlement follows', async () => {
      const m = await ok(admin('POST', '/admin/markets', { title: `Audit17 live ${Math.random()}`, category: 'bot17', market_type: 'threeway', end_date: endIn(2) }), 201);
      const w = await trader('20');
      const abort = new AbortController();
      const res = await fetch(`${base()}/api/stream?markets=${m.id}`, { signal: abort.signal });
      assert.equal(res.status, 200);
      const sse = sseReader(res.body!);
      try {
        const placed = await ok(trade(w, m.id, 'draw', 2.5));
        const tradeEvent = await sse.until((e) => e.event === 'trade');
        const listed = (await ok(call('GET', `/api/trades?market=${m.id}`))).data[0];
        assert.deepEqual(JSON.parse(tradeEvent.data!), listed, 'the stream sends the Trade record the list has');
        const priceEvent = JSON.parse((await sse.until((e) => e.event === 'price')).data!);
        const read = (await ok(call('GET', `/api/markets/${m.id}/price`))).data;
        assert.deepEqual(
          [priceEvent.trade_id, priceEvent.yes_price, priceEvent.no_price, priceEvent.draw_price],
          [placed.data.trade_id, read.yes_price, read.no_price, read.draw_price],
        );
        await ok(admin('POST', `/admin/markets/${m.id}/resolve`, { outcome: 'draw' }));
        const status = JSON.parse((await sse.until((e) => e.event === 'status')).data!);
        assert.deepEqual([status.market_id, status.status, status.resolved_outcome], [m.id, 'resolved', 'draw']);
        // Alone on the winning side, nothing lost: the stake comes back whole.
        assert.equal((await balanceOf(w)).balance, 20);
      } finally {
        abort.abort();
      }
    });

    it('retries with an Idempotency-Key: the same answer and no second stake; another body is 409', async () => {
      const m = await ok(admin('POST', '/admin/markets', { title: `Audit17 idem ${Math.random()}`, category: 'bot17', market_type: 'yesno', end_date: endIn(2) }), 201);
      const w = await trader('20');
      const key = { 'idempotency-key': `bot-${Math.random()}` };
      const first = await trade(w, m.id, 'yes', 5, key);
      assert.equal(first.status, 200);
      const again = await trade(w, m.id, 'yes', 5, key, w.viaWallet);
      assert.deepEqual(again, first, 'the same answer, signed the other way');
      assert.deepEqual(await trade(w, m.id, 'yes', 6, key), { status: 409, body: { success: false, error: 'Idempotency-Key reused with a different body' } });
      assert.deepEqual([(await balanceOf(w)).available, (await ok(call('GET', `/api/trades?wallet=${w.wallet}`))).total], [15, 1]);
      // Withdrawals too: one withdrawal, however many retries.
      const wkey = { 'idempotency-key': `wd-${Math.random()}` };
      const body = { wallet_addr: w.wallet, amount: 4 };
      const wd = await send(w.viaKey, { method: 'POST', url: '/api/pool/withdraw', body, headers: wkey });
      assert.equal(wd.status, 200, JSON.stringify(wd.body));
      assert.deepEqual(await send(w.viaKey, { method: 'POST', url: '/api/pool/withdraw', body, headers: wkey }), wd);
      const b = await balanceOf(w);
      assert.deepEqual([b.balance, b.locked, b.available], [15, 4, 11]);
      // Racing retries of one key: one stake.
      const rkey = { 'idempotency-key': `race-${Math.random()}` };
      const raced = await Promise.all([trade(w, m.id, 'no', 3, rkey), trade(w, m.id, 'no', 3, rkey, w.viaWallet)]);
      assert.deepEqual(raced[0], raced[1]);
      assert.deepEqual([(await balanceOf(w)).available, (await ok(call('GET', `/api/trades?wallet=${w.wallet}`))).total], [8, 2]);
      // Two different stakes racing for one balance: one is placed.
      const two = await Promise.all([trade(w, m.id, 'yes', 5, { 'idempotency-key': 'a' }), trade(w, m.id, 'no', 5, { 'idempotency-key': 'b' }, w.viaWallet)]);
      assert.deepEqual(two.map((a) => a.status).sort(), [200, 400]);
      assert.deepEqual(two.find((a) => a.status === 400)!.body, { success: false, error: 'Insufficient balance' });
      assert.equal((await balanceOf(w)).available, 3);
    });
  });
  describe('found and fixed', () => {
    it('an empty Idempotency-Key is refused, not taken as no key (a retry would stake twice)', async () => {
      const m = await ok(admin('POST', '/admin/markets', { title: `Audit17 empty key ${Math.random()}`, category: 'bot17', market_type: 'yesno', end_date: endIn(2) }), 201);
      const w = await trader('10');
      const bad = { status: 400, body: { success: false, error: 'Invalid Idempotency-Key' } };
      assert.deepEqual(await trade(w, m.id, 'yes', 2, { 'idempotency-key': '' }), bad);
      assert.deepEqual(await send(w.viaKey, { method: 'POST', url: '/api/pool/withdraw', body: { wallet_addr: w.wallet, amount: 1 }, headers: { 'idempotency-key': '' } }), bad);
      const b = await balanceOf(w);
      assert.deepEqual([b.balance, b.available], [10, 10], 'nothing moved');
    });

    it('a query parameter given twice is a 400 that says so', async () => {
      const m = await ok(admin('POST', '/admin/markets', { title: `Audit17 dup ${Math.random()}`, category: 'bot17', market_type: 'yesno', end_date: endIn(2) }), 201);
      const w = await trader('1');
      for (const [path, name] of [
        ['/api/markets?limit=5&limit=5', 'limit'],
        ['/api/markets?status=active&status=resolved', 'status'],
        ['/api/markets?page=1&page=2', 'page'],
        [`/api/trades?market=${m.id}&market=${m.id}`, 'market'],
        [`/api/trades?wallet=${w.wallet}&wallet=${w.wallet}`, 'wallet'],
        ['/api/events?status=active&status=active', 'status'],
        [`/api/pool/ledger/${w.wallet}?limit=1&limit=2`, 'limit'],
        [`/api/pool/ledger/${w.wallet}?type=trade&type=deposit`, 'type'],
        ['/api/markets/prices?ids=1&ids=2', 'ids'],
        ['/api/search?q=ab&q=cd', 'q'],
        ['/api/users/leaderboard?sort=pnl&sort=volume', 'sort'],
        [`/api/markets/${m.id}/history?interval=1d&interval=1w`, 'interval'],
      ] as const) {
        assert.deepEqual(await call('GET', path), { status: 400, body: { success: false, error: `Invalid ${name}: given more than once` } }, path);
      }
    });

    it('trade history pages by a cursor that neither repeats nor skips a trade while trades arrive', async () => {
      const m = await ok(admin('POST', '/admin/markets', { title: `Audit17 cursor ${Math.random()}`, category: 'bot17', market_type: 'yesno', end_date: endIn(2) }), 201);
      const w = await trader('100');
      const placed: number[] = [];
      for (let i = 0; i < 7; i++) placed.push((await ok(trade(w, m.id, i % 2 ? 'yes' : 'no', 1))).data.trade_id);
      const seen: number[] = [];
      let cursor: number | undefined;
      for (let round = 0; round < 10; round++) {
        const page = await ok(call('GET', `/api/trades?wallet=${w.wallet}&limit=3${cursor === undefined ? '' : `&cursor=${cursor}`}`));
        assert.equal(page.total, placed.length, 'total counts every trade of the filter, the cursor aside');
        const ids = (page.data as { id: number }[]).map((x) => x.id);
        if (ids.length === 0) break;
        seen.push(...ids);
        cursor = ids.at(-1);
        // A new trade arrives between pages: it is newer than every page still to come.
        placed.push((await ok(trade(w, m.id, 'yes', 1))).data.trade_id);
      }
      const firstSeven = placed.slice(0, 7).reverse();
      assert.deepEqual(seen, firstSeven, 'every trade there at the start, newest first, once');
      // The cursor combines with market; it is a trade id, and an unknown one is named.
      const byMarket = await ok(call('GET', `/api/trades?market=${m.id}&cursor=${placed[3]}&limit=100`));
      assert.deepEqual((byMarket.data as { id: number }[]).map((x) => x.id), placed.slice(0, 3).reverse());
      assert.deepEqual(await call('GET', '/api/trades?cursor=2147483647'), { status: 400, body: { success: false, error: 'Invalid cursor: no trade 2147483647' } });
      assert.deepEqual(await call('GET', '/api/trades?cursor=abc'), { status: 400, body: { success: false, error: 'Invalid cursor: must be between 1 and 2147483647' } });
      assert.deepEqual(await call('GET', `/api/trades?cursor=${placed[0]}&page=2`), { status: 400, body: { success: false, error: 'Invalid cursor: send it without page or offset' } });
      assert.deepEqual(await call('GET', `/api/trades?cursor=${placed[0]}&offset=0`), { status: 400, body: { success: false, error: 'Invalid cursor: send it without page or offset' } });
    });

    it('the operator unfeatures a market and an event', async () => {
      const ev = await ok(admin('POST', '/admin/events', { title: `Audit17 unfeature ${Math.random()}`, category: 'op17' }), 201);
      const m = await ok(admin('POST', '/admin/markets', { title: `Audit17 unfeature ${Math.random()}`, event_id: ev.id, market_type: 'yesno', end_date: endIn(2) }), 201);
      await ok(admin('POST', `/admin/markets/${m.id}/feature`));
      await ok(admin('POST', `/admin/events/${ev.id}/feature`));
      const market = await ok(admin('DELETE', `/admin/markets/${m.id}/feature`));
      assert.deepEqual([market.id, market.featured, market.featured_at], [m.id, false, null]);
      assert.equal((await ok(call('GET', '/api/markets/featured'))).data, null);
      assert.equal((await ok(call('GET', `/api/markets/${m.id}`))).data.featured, false);
      const event = await ok(admin('DELETE', `/admin/events/${ev.id}/feature`));
      assert.deepEqual([event.id, event.featured, event.featured_at], [ev.id, false, null]);
      assert.equal((await ok(call('GET', '/api/events/featured'))).data, null);
      // Unfeaturing what is not featured changes nothing and says so plainly: the same answer.
      assert.equal((await ok(admin('DELETE', `/admin/markets/${m.id}/feature`))).featured, false);
      assert.deepEqual(await admin('DELETE', '/admin/markets/2147483647/feature'), { status: 404, body: { error: 'Market not found' } });
      assert.deepEqual(await admin('DELETE', '/admin/events/2147483647/feature'), { status: 404, body: { error: 'Event not found' } });
    });
  });
});
