import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { marketAuditSuite, type SocketAnswer } from './helpers/market-socket.ts';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { hmacHeaders, nowSeconds, signedRequest, tradeBody, walletHeaders, walletMessage, type ApiKeyCredentials, type MarketSigner } from './helpers/market-client.ts';

/**
 * The sixteenth audit of the market API (docs/api-decisions.md, "Market API: sixteenth audit"),
 * over a real socket.
 */
describe('market API, sixteenth audit (over HTTP)', () => {
  const { app, base, call, admin, ok, market, trader } = marketAuditSuite();

  /**
   * A signed request at the current second. Racing requests differ in wallet or body, so none is
   * refused as a replay of another (the helper's `send` spaces its seconds instead, too few here).
   */
  const sendNow = async (signer: MarketSigner, method: 'POST', url: string, body: unknown): Promise<SocketAnswer> => {
    const req = await signedRequest(signer, { method, url, body });
    const res = await fetch(base() + req.url, { method: req.method, headers: req.headers, body: req.payload });
    return { status: res.status, body: await res.json() };
  };
  type Trader = Awaited<ReturnType<typeof trader>>;
  const stake = (w: Trader, marketId: number, side: string, amount: number) => sendNow(w.viaKey, 'POST', '/api/pool/trade', tradeBody(w.wallet, marketId, side, amount));
  const withdraw = (w: Trader, amount: number) => sendNow(w.viaKey, 'POST', '/api/pool/withdraw', { wallet_addr: w.wallet, amount });
  const balanceOf = async (w: Trader) => (await ok(call('GET', `/api/pool/balance/${w.wallet}`))).data as { balance: number; locked: number; available: number };
  /** How many answers had each status and message (`200` for a success). */
  const tally = (answers: { status: number; body: { error?: string } }[]) => {
    const out: Record<string, number> = {};
    for (const a of answers) {
      const k = a.status === 200 ? '200' : `${a.status} ${a.body.error}`;
      out[k] = (out[k] ?? 0) + 1;
    }
    return out;
  };
  const PAIRS = 8;

  describe("Polymarket's active and closed on the events list", () => {
    it('maps active= and closed= onto the event status, combines them with status, and refuses a bad boolean naming it', async () => {
      const category = 'audit16ev';
      const open = (await ok(admin('POST', '/admin/events', { title: `Audit16 open ${Math.random()}`, category }), 201)) as { id: number };
      const done = (await ok(admin('POST', '/admin/events', { title: `Audit16 done ${Math.random()}`, category }), 201)) as { id: number };
      const m = await market(category, { event_id: done.id });
      await ok(admin('POST', `/admin/markets/${m.id}/resolve`, { outcome: 'yes' }));
      const list = async (query: string) => {
        const body = await ok(call('GET', `/api/events?limit=100&${query}`));
        const ids = (body.data as { id: number }[]).map((e) => e.id).filter((id) => id === open.id || id === done.id).sort((a, b) => a - b);
        assert.equal(body.total, body.data.length, `${query}: total counts the same events`);
        return ids;
      };
      assert.deepEqual(await list(''), [open.id, done.id]);
      assert.deepEqual(await list('active=true'), [open.id]);
      assert.deepEqual(await list('active=false'), [done.id]);
      assert.deepEqual(await list('closed=true'), [done.id]);
      assert.deepEqual(await list('closed=false'), [open.id]);
      assert.deepEqual(await list('active=true&closed=false'), [open.id]);
      assert.deepEqual(await list('status=resolved&closed=true'), [done.id]);
      assert.deepEqual(await list('status=active&active=true'), [open.id]);
      // A contradiction is an empty page, as on the markets list.
      for (const q of ['status=resolved&closed=false', 'status=active&active=false', 'active=true&closed=true']) {
        const none = await ok(call('GET', `/api/events?${q}`));
        assert.deepEqual([none.data, none.total], [[], 0], q);
      }
      for (const [name, value] of [['active', 'yes'], ['active', 'TRUE'], ['active', ''], ['closed', '1'], ['closed', 'False']]) {
        assert.deepEqual(await call('GET', `/api/events?${name}=${value}`), {
          status: 400,
          body: { success: false, error: `Invalid ${name}: must be one of true, false` },
        }, `${name}=${value}`);
      }
    });
  });

  describe('races for the same money: only one request may win', () => {
    it('two stakes that together exceed the balance: exactly one is placed', async () => {
      const m = await market('audit16race');
      const wallets = await Promise.all(Array.from({ length: PAIRS }, () => trader('10')));
      const answers = await Promise.all(wallets.flatMap((w) => [stake(w, m.id, 'yes', 6), stake(w, m.id, 'no', 7)]));
      assert.deepEqual(tally(answers), { '200': PAIRS, '400 Insufficient balance': PAIRS });
      for (const [i, w] of wallets.entries()) {
        const won = answers[2 * i]!.status === 200 ? 6 : 7;
        assert.deepEqual(await balanceOf(w).then((b) => [b.balance, b.available]), [10 - won, 10 - won], w.wallet);
      }
      const detail = (await ok(call('GET', `/api/markets/${m.id}`))).data;
      assert.deepEqual([detail.trade_count, detail.volume, detail.liquidity], [PAIRS, answers.reduce((v, a) => v + (a.status === 200 ? a.body.data.amount : 0), 0), detail.volume]);
    });

    it('a withdrawal and a stake (and two withdrawals) that together exceed the balance: exactly one is taken', async () => {
      const m = await market('audit16race');
      const wallets = await Promise.all(Array.from({ length: PAIRS }, () => trader('10')));
      const answers = await Promise.all(wallets.flatMap((w, i) => (i % 2 ? [withdraw(w, 6), stake(w, m.id, 'yes', 6)] : [withdraw(w, 6), withdraw(w, 7)])));
      assert.deepEqual(tally(answers), { '200': PAIRS, '400 Insufficient balance': PAIRS }, JSON.stringify(answers.map((a) => a.body)));
      for (const [i, w] of wallets.entries()) {
        const b = await balanceOf(w);
        const first = answers[2 * i]!.status === 200;
        // A pending withdrawal is locked, not yet gone; a stake leaves the balance at once.
        const expected = i % 2 && !first ? { balance: 4, locked: 0, available: 4 } : { balance: 10, locked: first ? 6 : 7, available: first ? 4 : 3 };
        assert.deepEqual({ balance: b.balance, locked: b.locked, available: b.available }, expected, `${w.wallet} (${i % 2 ? 'withdraw/stake' : 'withdraw/withdraw'})`);
      }
    });

    for (const settle of ['resolve', 'cancel'] as const) {
      it(`stakes racing the market's ${settle}: each is either refused or placed and settled, never left in escrow`, async () => {
        const seed = await trader(String(PAIRS * 2));
        const wallets = await Promise.all(Array.from({ length: PAIRS }, () => trader('10')));
        const markets = await Promise.all(wallets.map(() => market('audit16race')));
        for (const m of markets) assert.equal((await stake(seed, m.id, 'yes', 2)).status, 200);
        const answers = await Promise.all(
          markets.flatMap((m, i) => [
            stake(wallets[i]!, m.id, 'no', 5),
            admin('POST', `/admin/markets/${m.id}/${settle}`, settle === 'resolve' ? { outcome: 'yes' } : undefined),
          ]),
        );
        for (const [i, m] of markets.entries()) {
          const [trade, settled] = [answers[2 * i]!, answers[2 * i + 1]!];
          assert.equal(settled.status, 200, JSON.stringify(settled.body));
          assert.ok(trade.status === 200 || (trade.status === 400 && trade.body.error === 'Market not active'), JSON.stringify(trade.body));
          const placed = trade.status === 200;
          // The settlement saw the stake exactly when the stake was placed before it.
          assert.equal(settled.body.settlement.positions, placed ? 2 : 1, `market ${m.id}`);
          assert.equal(settled.body.settlement.total, placed ? 7 : 2);
          // Resolved to yes, a placed stake on no is lost; cancelled, it is refunded.
          const expected = placed && settle === 'resolve' ? 5 : 10;
          assert.deepEqual(await balanceOf(wallets[i]!).then((b) => [b.balance, b.available]), [expected, expected], `market ${m.id}`);
          assert.equal(settled.body.escrow, 0, `market ${m.id}: nothing left in escrow`);
        }
      });
    }

    it('two settlements of one market at once (resolve twice, resolve and cancel): one pays, the other is refused', async () => {
      const a = await trader('10');
      const b = await trader('10');
      const markets = await Promise.all(Array.from({ length: PAIRS }, () => market('audit16race')));
      for (const m of markets) {
        assert.equal((await stake(a, m.id, 'yes', 1)).status, 200);
        assert.equal((await stake(b, m.id, 'no', 1)).status, 200);
      }
      const answers = await Promise.all(
        markets.flatMap((m, i) => [
          admin('POST', `/admin/markets/${m.id}/resolve`, { outcome: 'yes' }),
          i % 2 ? admin('POST', `/admin/markets/${m.id}/cancel`) : admin('POST', `/admin/markets/${m.id}/resolve`, { outcome: 'no' }),
        ]),
      );
      let aGets = 0;
      let bGets = 0;
      for (const [i] of markets.entries()) {
        const pair = [answers[2 * i]!, answers[2 * i + 1]!];
        assert.deepEqual(pair.map((x) => x.status).sort(), [200, 400], JSON.stringify(pair.map((x) => x.body)));
        const winner = pair.find((x) => x.status === 200)!.body;
        const loser = pair.find((x) => x.status === 400)!.body;
        assert.equal(loser.error, winner.status === 'resolved' ? 'Market already resolved' : 'Market already cancelled');
        // 1 + 0.95 to the winner of a resolution; each stake back on a cancellation.
        const s = winner.settlement;
        if (s.mode === 'cancelled') [aGets, bGets] = [aGets + 1, bGets + 1];
        else if (s.outcome === 'yes') aGets += 1.95;
        else bGets += 1.95;
      }
      const round = (x: number) => Math.round(x * 1e6) / 1e6;
      assert.equal((await balanceOf(a)).balance, round(10 - PAIRS + aGets));
      assert.equal((await balanceOf(b)).balance, round(10 - PAIRS + bGets));
    });
  });

  describe('signed requests: every way one can be wrong is refused in the contract\'s words', () => {
    it('answers each wrong wallet signature or API-key HMAC with the contract\'s 4xx (a wrong signature is exactly `Invalid signature`), and moves nothing', async () => {
      const w = await trader('10');
      const m = await market('audit16sig');
      const body = JSON.stringify(tradeBody(w.wallet, m.id, 'yes', 1));
      const path = '/api/pool/trade';
      const post = async (headers: Record<string, string>, sent = body) => {
        const res = await fetch(base() + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: sent });
        return { status: res.status, body: await res.json() };
      };
      const refused = (error: string, status = 401) => ({ status, body: { success: false, error } });
      const parts = (p: Partial<{ method: string; path: string; body: string; timestamp: number }> = {}) => ({ method: 'POST', path, body, timestamp: nowSeconds(), ...p });
      const signed = (p: Partial<{ method: string; path: string; body: string; timestamp: number }> = {}) => walletHeaders(w.account, parts(p));
      const stranger = privateKeyToAccount(generatePrivateKey());
      const key = (w.viaKey as { apiKey: ApiKeyCredentials }).apiKey;
      const good = await signed();
      const cases: [string, Record<string, string>, { status: number; body: unknown }][] = [
        ['no headers', {}, refused('Signature required')],
        ['message without signature', { 'x-wallet-message': good['x-wallet-message']! }, refused('Signature required')],
        ['signature without message', { 'x-wallet-signature': good['x-wallet-signature']! }, refused('Signature required')],
        ['stale timestamp', await signed({ timestamp: nowSeconds() - 120 }), refused('Timestamp out of range')],
        ['future timestamp', await signed({ timestamp: nowSeconds() + 120 }), refused('Timestamp out of range')],
        ['message not in the format', { ...good, 'x-wallet-message': 'please let me trade' }, refused('Invalid signature')],
        ['message for another body', await signed({ body: body.replace('"amount":1', '"amount":9') }), refused('Invalid signature')],
        ['message for another path', await signed({ path: '/api/pool/withdraw' }), refused('Invalid signature')],
        ['message for another method', await signed({ method: 'PUT' }), refused('Invalid signature')],
        ['signature not hex', { ...good, 'x-wallet-signature': '0x' + 'zz'.repeat(65) }, refused('Invalid signature')],
        ['signature too short', { ...good, 'x-wallet-signature': good['x-wallet-signature']!.slice(0, 100) }, refused('Invalid signature')],
        [
          'signed by another key',
          { 'x-wallet-message': walletMessage(w.wallet, parts()), 'x-wallet-signature': await stranger.signMessage({ message: walletMessage(w.wallet, parts()) }) },
          refused('Invalid signature'),
        ],
        ['another wallet signing for this one', await walletHeaders(stranger, parts()), refused('Wallet mismatch', 403)],
        ['hmac over another body', hmacHeaders(key, parts({ body: '{}' })), refused('Invalid signature')],
        ['hmac not hex', { ...hmacHeaders(key, parts()), 'x-api-signature': 'zz' }, refused('Invalid signature')],
        ['hmac stale', hmacHeaders(key, parts({ timestamp: nowSeconds() - 120 })), refused('Timestamp out of range')],
        ['unknown api key', hmacHeaders({ api_key: 'mk_' + '0'.repeat(32), api_secret: 'x' }, parts()), refused('Invalid API key')],
      ];
      for (const [name, headers, expected] of cases) assert.deepEqual(await post(headers), expected, name);
      // The message must match the body actually sent, not only be well signed.
      assert.deepEqual(await post(good, body.replace('"amount":1', '"amount":2')), refused('Invalid signature'));
      // Replayed: accepted once, then refused.
      assert.equal((await post(good)).status, 200);
      assert.deepEqual(await post(good), refused('Signature already used'));
      assert.equal((await balanceOf(w)).balance, 9, 'only the one good request moved money');
    });
  });

  describe('trades by time: Kalshi\'s min_ts / max_ts and Polymarket\'s after / before', () => {
    it('lists the trades inside the window of unix seconds, both bounds whole seconds included, and refuses bad bounds naming them', async () => {
      const w = await trader('20');
      const m = await market('audit16trades');
      for (const amount of [1, 2, 3]) assert.equal((await stake(w, m.id, 'yes', amount)).status, 200);
      // The trades' own times, moved apart by the operator's hand in the database.
      const at = ['2026-01-01T00:00:10.000Z', '2026-01-01T00:00:20.500Z', '2026-01-01T00:00:30.999Z'].map((x) => new Date(x));
      const rows = await app().deps.db.selectFrom('trades').select('id').where('market_id', '=', m.id).orderBy('id').execute();
      for (const [i, r] of rows.entries()) await app().deps.db.updateTable('trades').set({ created_at: at[i]! }).where('id', '=', r.id).execute();
      const sec = (d: Date) => Math.floor(d.getTime() / 1000);
      const [t1, t2, t3] = at.map(sec) as [number, number, number];
      const ids = async (query: string) => {
        const body = await ok(call('GET', `/api/trades?market=${m.id}&${query}`));
        assert.equal(body.total, body.data.length, `${query}: total counts the window`);
        return (body.data as { id: number }[]).map((x) => x.id);
      };
      const [a, b, c] = rows.map((r) => r.id) as [number, number, number];
      assert.deepEqual(await ids(''), [c, b, a]);
      assert.deepEqual(await ids(`min_ts=${t2}`), [c, b]);
      assert.deepEqual(await ids(`max_ts=${t2}`), [b, a], 'max_ts covers its whole second');
      assert.deepEqual(await ids(`min_ts=${t2}&max_ts=${t2}`), [b]);
      assert.deepEqual(await ids(`min_ts=${t1 + 1}&max_ts=${t3 - 1}`), [b]);
      assert.deepEqual(await ids(`after=${t2}`), [c, b]);
      assert.deepEqual(await ids(`before=${t2}`), [b, a]);
      assert.deepEqual(await ids(`min_ts=${t3 + 1}`), []);
      // With the wallet filter, and across markets.
      assert.deepEqual(await ids(`wallet=${w.wallet}&min_ts=${t2}`), [c, b]);
      const everywhere = await ok(call('GET', `/api/trades?min_ts=${t1}&max_ts=${t3}&limit=100`));
      assert.deepEqual(everywhere.data.map((x: { id: number }) => x.id), [c, b, a]);
      assert.equal(everywhere.total, 3);
      const bad = (query: string, error: string) => [query, { status: 400, body: { success: false, error } }] as const;
      for (const [query, expected] of [
        bad('min_ts=abc', 'Invalid min_ts: must be between 0 and 253402300799'),
        bad('max_ts=-1', 'Invalid max_ts: must be between 0 and 253402300799'),
        bad('min_ts=1.5', 'Invalid min_ts: must be between 0 and 253402300799'),
        bad(`max_ts=${Date.now()}000`, 'Invalid max_ts: must be between 0 and 253402300799'),
        bad('after=', 'Invalid after: must be between 0 and 253402300799'),
        bad(`min_ts=${t3}&max_ts=${t1}`, 'Invalid min_ts: must not be after max_ts'),
        bad(`min_ts=${t1}&after=${t1}`, 'Invalid after: cannot be combined with min_ts (they are the same filter)'),
        bad(`max_ts=${t1}&before=${t1}`, 'Invalid before: cannot be combined with max_ts (they are the same filter)'),
      ]) {
        assert.deepEqual(await call('GET', `/api/trades?market=${m.id}&${query}`), expected, query);
      }
    });
  });

  describe('portfolio marks recomputed by hand from market-math.md', () => {
    it('values open positions and realized results over open, resolved and cancelled markets to the micro-USDC', async () => {
      const a = await trader('100');
      const b = await trader('100');
      const U = 1_000_000n;
      const units = (usdc: number) => BigInt(Math.round(usdc * 1e6));
      const usdc = (u: bigint) => Number(u) / 1e6;
      // Each market opens with the default seeds, 100 USDC split evenly (market-math.md).
      type Book = { P: { yes: bigint; no: bigint }; V: { yes: bigint; no: bigint } };
      const books = new Map<number, Book>();
      const held = new Map<string, { cost: bigint; shares: bigint }>();
      const open = async () => {
        const m = await market('audit16marks');
        books.set(m.id, { P: { yes: 0n, no: 0n }, V: { yes: 50n * U, no: 50n * U } });
        return m.id;
      };
      const price = (bk: Book, o: 'yes' | 'no') => Number(bk.P[o] + bk.V[o]) / Number(bk.P.yes + bk.P.no + bk.V.yes + bk.V.no);
      const trade = async (w: Trader, id: number, o: 'yes' | 'no', amount: number) => {
        const bk = books.get(id)!;
        const a = units(amount);
        const S = bk.P[o] + bk.V[o];
        const O = bk.P.yes + bk.P.no + bk.V.yes + bk.V.no - S;
        // shares = floor(a + O * ln(1 + a / S)), in float64 on units.
        const shares = BigInt(Math.floor(Number(a) + Number(O) * Math.log1p(Number(a) / Number(S))));
        const answer = await stake(w, id, o, amount);
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.equal(answer.body.data.shares, usdc(shares), `shares of ${amount} on ${o}`);
        bk.P[o] += a;
        const k = `${w.wallet}:${id}:${o}`;
        const p = held.get(k) ?? { cost: 0n, shares: 0n };
        held.set(k, { cost: p.cost + a, shares: p.shares + shares });
      };
      const m1 = await open();
      const m2 = await open();
      const m3 = await open();
      const m4 = await open();
      await trade(a, m1, 'yes', 10);
      await trade(b, m1, 'no', 4);
      await trade(a, m1, 'yes', 3.5);
      await trade(b, m2, 'yes', 7);
      await trade(a, m2, 'no', 2.25);
      await trade(a, m3, 'yes', 5);
      await trade(b, m3, 'no', 8.333333);
      await trade(a, m4, 'no', 6);
      await trade(b, m4, 'yes', 1);
      await ok(admin('POST', `/admin/markets/${m3}/resolve`, { outcome: 'yes' }));
      await ok(admin('POST', `/admin/markets/${m4}/cancel`));

      // Open marks: current_value = shares * current_price (to the unit), pnl = value - cost.
      const mark = (w: Trader, id: number, o: 'yes' | 'no') => {
        const { cost, shares } = held.get(`${w.wallet}:${id}:${o}`)!;
        const p = price(books.get(id)!, o);
        const value = BigInt(Math.round(Number(shares) * p));
        const pnl = value - cost;
        return {
          market_id: id, side: o.toUpperCase(), shares: usdc(shares), avg_price: Number(cost) / Number(shares), current_price: p,
          current_value: usdc(value), cost_basis: usdc(cost), pnl: usdc(pnl), pnl_percent: (Number(pnl) / Number(cost)) * 100, status: 'active',
          value, cost, pnlUnits: pnl,
        };
      };
      const aOpen = [mark(a, m1, 'yes'), mark(a, m2, 'no')];
      const positions = ((await ok(call('GET', `/api/portfolio/${a.wallet}`))).data as { market_id: number }[]).sort((x, y) => x.market_id - y.market_id);
      assert.deepEqual(
        positions.map(({ market_id, side, shares, avg_price, current_price, current_value, cost_basis, pnl, pnl_percent, status }: Record<string, unknown>) =>
          ({ market_id, side, shares, avg_price, current_price, current_value, cost_basis, pnl, pnl_percent, status })),
        aOpen.map(({ value: _v, cost: _c, pnlUnits: _p, ...shown }) => shown),
      );

      // Resolved to yes: L = 8.333333, fee = floor(L * 500 / 10000), A (the only holder of yes) gets 5 + (L - fee).
      const L = units(8.333333);
      const fee = (L * 500n) / 10000n;
      const realized = L - fee; // A on m3: paid 5 + (L - fee) for a stake of 5; m4 cancelled: 0.
      const value = aOpen.reduce((s, x) => s + x.value, 0n);
      const cost = aOpen.reduce((s, x) => s + x.cost, 0n);
      const stats = (await ok(call('GET', `/api/portfolio/${a.wallet}/stats`))).data;
      assert.deepEqual(stats, {
        wallet: a.wallet.toLowerCase(), open_positions: 2, open_markets: 2,
        total_value: usdc(value), total_cost: usdc(cost), unrealized_pnl: usdc(value - cost),
        realized_pnl: usdc(realized), total_pnl: usdc(realized + value - cost),
        total_volume: 10 + 3.5 + 2.25 + 5 + 6, markets_traded: 4, settled_markets: 2, won_markets: 1, win_rate: 0.5,
      });
      const bOpen = [mark(b, m1, 'no'), mark(b, m2, 'yes')];
      const bStats = (await ok(call('GET', `/api/portfolio/${b.wallet}/stats`))).data;
      const bUnrealized = bOpen.reduce((s, x) => s + x.pnlUnits, 0n);
      assert.deepEqual([bStats.realized_pnl, bStats.unrealized_pnl, bStats.total_pnl, bStats.win_rate], [usdc(-L), usdc(bUnrealized), usdc(bUnrealized - L), 0]);
      // The balance agrees: 100 - stakes + payout + refund.
      assert.equal((await balanceOf(a)).balance, usdc(100n * U - units(26.75) + 5n * U + realized + 6n * U));
      // The profile and the leaderboard tell the same total_pnl.
      assert.equal((await ok(call('GET', `/api/users/${a.wallet}`))).data.total_pnl, usdc(realized + value - cost));
    });
  });

  describe('settling a market that never opened', () => {
    it('resolves (or cancels) a pending market: nothing was staked, so nothing moves, and it never opens after', async () => {
      const w = await trader('5');
      const ev = (await ok(admin('POST', '/admin/events', { title: `Audit16 pending ${Math.random()}`, category: 'audit16pending' }), 201)) as { id: number };
      const pending = await market('audit16pending', { status: 'pending', event_id: ev.id });
      assert.deepEqual(await stake(w, pending.id, 'yes', 1), { status: 400, body: { success: false, error: 'Market not active' } });
      const resolved = await ok(admin('POST', `/admin/markets/${pending.id}/resolve`, { outcome: 'no' }));
      assert.deepEqual([resolved.status, resolved.resolved_outcome, resolved.escrow], ['resolved', 'no', 0]);
      assert.deepEqual(resolved.settlement, { mode: 'no_winners', outcome: 'no', total: 0, paid: 0, fee: 0, dust: 0, positions: 0, positions_paid: 0 });
      assert.deepEqual(await admin('POST', `/admin/markets/${pending.id}/activate`), { status: 400, body: { error: 'Market already resolved' } });
      assert.deepEqual(await stake(w, pending.id, 'yes', 2), { status: 400, body: { success: false, error: 'Market not active' } });
      const detail = (await ok(call('GET', `/api/markets/${pending.id}`))).data;
      assert.deepEqual([detail.status, detail.resolved_outcome], ['resolved', 'no']);
      // Its event had no other market: it is resolved with it.
      assert.equal((await ok(call('GET', `/api/events/${ev.id}`))).data.status, 'resolved');
      const other = await market('audit16pending', { status: 'pending' });
      const cancelled = await ok(admin('POST', `/admin/markets/${other.id}/cancel`));
      assert.deepEqual([cancelled.status, cancelled.settlement.total, cancelled.settlement.positions], ['cancelled', 0, 0]);
      assert.equal((await balanceOf(w)).balance, 5);
    });
  });
});
