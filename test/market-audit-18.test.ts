import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { marketAuditSuite, marketOverSocket } from './helpers/market-socket.ts';
import { assertBooksBalanced } from './helpers/market.ts';
import { tradeBody, type MarketSigner } from './helpers/market-client.ts';

/**
 * The eighteenth audit of the market API (docs/api-decisions.md, "Market API: eighteenth
 * audit"): cursors on the markets and events lists, then an operator's, a trader's and a bot's
 * whole journeys over a real socket, every number recomputed in bigint from the pool arithmetic
 * (docs/pool-arithmetic.md), the books checked after every step, and odd input on every
 * parameter. Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */
describe('market API, eighteenth audit (over HTTP)', () => {
  const { app, base, call, admin, ok, trader, endIn } = marketAuditSuite();
  let send: ReturnType<typeof marketOverSocket>['send'];
  beforeEach(() => {
    send = marketOverSocket(base).send;
  });
  type Trader = Awaited<ReturnType<typeof trader>>;
  const trade = (w: Trader, marketId: number, side: string, amount: number, headers: Record<string, string> = {}, signer: MarketSigner = w.viaKey) =>
    send(signer, { method: 'POST', url: '/api/pool/trade', body: tradeBody(w.wallet, marketId, side, amount), headers });
  const tag = (prefix: string) => `${prefix}${Math.floor(Math.random() * 1e9)}`;
  const mk = async (category: string, fields: Record<string, unknown> = {}) =>
    (await ok(admin('POST', '/admin/markets', { title: `Audit18 ${category} ${Math.random()}`, category, market_type: 'yesno', end_date: endIn(30), ...fields }), 201)) as {
      id: number;
    };
  const idsOf = (page: { data: { id: number }[] }) => page.data.map((x) => x.id);
  /** Pages a list by cursor, calling `between` after each page; the ids in the order read. */
  const pageByCursor = async (path: string, limit: number, between: () => Promise<unknown>) => {
    const seen: number[] = [];
    const totals: number[] = [];
    let cursor: number | undefined;
    for (let round = 0; round < 20; round++) {
      const page = await ok(call('GET', `${path}&limit=${limit}${cursor === undefined ? '' : `&cursor=${cursor}`}`));
      totals.push(page.total);
      const ids = idsOf(page);
      if (ids.length === 0) break;
      seen.push(...ids);
      cursor = ids.at(-1);
      await between();
    }
    return { seen, totals };
  };

  describe('lists by cursor', () => {
    it('markets, newest first: every market there at the start, once, however many are created between pages', async () => {
      const category = tag('cur18n');
      const made: number[] = [];
      for (let i = 0; i < 5; i++) made.push((await mk(category)).id);
      const { seen, totals } = await pageByCursor(`/api/markets?category=${category}&sort=newest`, 2, async () => made.push((await mk(category)).id));
      assert.deepEqual(seen, made.slice(0, 5).reverse());
      assert.deepEqual(totals.slice(0, 2), [5, 6], 'total counts the filter as it stands, the cursor aside');
      // Offset pages shift instead (the reason for the cursor): the same page read twice, a market
      // created between, repeats the last item.
      const p1 = idsOf(await ok(call('GET', `/api/markets?category=${category}&limit=2&offset=2`)));
      await mk(category);
      const p2 = idsOf(await ok(call('GET', `/api/markets?category=${category}&limit=2&offset=4`)));
      assert.equal(p2[0], p1[1]);
    });

    it('markets by volume: a keyset over (volume, id), so new markets do not shift the pages', async () => {
      const category = tag('cur18v');
      const w = await trader('100');
      const made: number[] = [];
      for (let i = 0; i < 6; i++) made.push((await mk(category)).id);
      // Volumes 4, 3, 3, 1, 0, 0 USDC: ties are ordered by id, newest first.
      for (const [i, amount] of [[0, 4], [1, 3], [2, 3], [3, 1]] as const) await ok(trade(w, made[i]!, 'yes', amount));
      const expected = [made[0]!, made[2]!, made[1]!, made[3]!, made[5]!, made[4]!];
      assert.deepEqual(idsOf(await ok(call('GET', `/api/markets?category=${category}&sort=volume&limit=100`))), expected);
      // A market created between pages has no volume: it belongs among the last, not yet read, so
      // it may be listed; none read is listed again and none there at the start is missed.
      const { seen } = await pageByCursor(`/api/markets?category=${category}&sort=volume`, 2, () => mk(category));
      assert.deepEqual(seen.filter((id) => made.includes(id)), expected);
      assert.equal(new Set(seen).size, seen.length, 'none twice');
    });

    it('markets ending soon: running markets by end date, then the settled, each once', async () => {
      const category = tag('cur18e');
      const made: number[] = [];
      for (const days of [3, 1, 2, 2]) made.push((await mk(category, { end_date: endIn(days) })).id);
      const settled = (await mk(category, { end_date: endIn(9) })).id;
      await ok(admin('POST', `/admin/markets/${settled}/cancel`));
      const expected = [made[1]!, made[2]!, made[3]!, made[0]!, settled];
      assert.deepEqual(idsOf(await ok(call('GET', `/api/markets?category=${category}&sort=ending_soon&limit=100`))), expected);
      // Markets created between pages end sooner than any: they go first, before the cursor.
      const { seen } = await pageByCursor(`/api/markets?category=${category}&sort=ending_soon`, 2, () => mk(category, { end_date: endIn(0.5) }));
      assert.deepEqual(seen, expected);
    });

    it('markets trending: a keyset over (24-hour volume, volume, id)', async () => {
      const category = tag('cur18t');
      const w = await trader('100');
      const made: number[] = [];
      for (let i = 0; i < 5; i++) made.push((await mk(category)).id);
      for (const [i, amount] of [[1, 5], [3, 2], [4, 2]] as const) await ok(trade(w, made[i]!, 'no', amount));
      const expected = [made[1]!, made[4]!, made[3]!, made[2]!, made[0]!];
      assert.deepEqual(idsOf(await ok(call('GET', `/api/markets?category=${category}&sort=trending&limit=100`))), expected);
      const { seen } = await pageByCursor(`/api/markets?category=${category}&sort=trending`, 2, () => mk(category));
      assert.deepEqual(seen.filter((id) => made.includes(id)), expected);
      assert.equal(new Set(seen).size, seen.length, 'none twice');
    });

    it('a cursor market that left the filter still marks the place; bad cursors are named', async () => {
      const category = tag('cur18s');
      const made: number[] = [];
      for (let i = 0; i < 4; i++) made.push((await mk(category)).id);
      const first = idsOf(await ok(call('GET', `/api/markets?category=${category}&status=active&limit=2`)));
      assert.deepEqual(first, [made[3], made[2]]);
      await ok(admin('POST', `/admin/markets/${made[2]}/cancel`));
      const next = await ok(call('GET', `/api/markets?category=${category}&status=active&limit=2&cursor=${made[2]}`));
      assert.deepEqual([idsOf(next), next.total], [[made[1], made[0]], 3]);
      // Combines with q.
      assert.deepEqual(idsOf(await ok(call('GET', `/api/markets?q=${category}&cursor=${made[1]}`))), [made[0]]);
      const bad = (error: string) => ({ status: 400, body: { success: false, error } });
      assert.deepEqual(await call('GET', '/api/markets?cursor=2147483647'), bad('Invalid cursor: no market 2147483647'));
      assert.deepEqual(await call('GET', '/api/markets?cursor=abc'), bad('Invalid cursor: must be between 1 and 2147483647'));
      assert.deepEqual(await call('GET', '/api/markets?cursor=0'), bad('Invalid cursor: must be between 1 and 2147483647'));
      assert.deepEqual(await call('GET', `/api/markets?cursor=${made[0]}&page=2`), bad('Invalid cursor: send it without page or offset'));
      assert.deepEqual(await call('GET', `/api/markets?cursor=${made[0]}&offset=0`), bad('Invalid cursor: send it without page or offset'));
      assert.deepEqual(await call('GET', `/api/markets?cursor=${made[0]}&cursor=${made[0]}`), bad('Invalid cursor: given more than once'));
      // page=1 is the default, so it may be said beside a cursor.
      assert.equal((await call('GET', `/api/markets?category=${category}&cursor=${made[1]}&page=1`)).status, 200);
    });

    it('events, newest first, by cursor: each once while events are created', async () => {
      const category = tag('cur18ev');
      const made: number[] = [];
      const mkEvent = async () => (await ok(admin('POST', '/admin/events', { title: `Audit18 ${category} ${Math.random()}`, category }), 201)).id as number;
      for (let i = 0; i < 5; i++) made.push(await mkEvent());
      const initial = [...made];
      const { seen } = await pageByCursor('/api/events?status=active', 2, async () => made.push(await mkEvent()));
      // Every event there at the start, once, newest first; none created meanwhile.
      assert.deepEqual(seen.filter((id) => made.includes(id)), initial.reverse());
      assert.equal(new Set(seen).size, seen.length);
      const start = made[0]!;
      const bad = (error: string) => ({ status: 400, body: { success: false, error } });
      assert.deepEqual(await call('GET', '/api/events?cursor=2147483647'), bad('Invalid cursor: no event 2147483647'));
      assert.deepEqual(await call('GET', '/api/events?cursor=-1'), bad('Invalid cursor: must be between 1 and 2147483647'));
      assert.deepEqual(await call('GET', `/api/events?cursor=${start}&offset=3`), bad('Invalid cursor: send it without page or offset'));
    });
  });
  describe('journeys', () => {
    // ---- the arithmetic of market-math.md, written from the document in bigint ----
    const U = 1_000_000n;
    const units = (usdc: number) => BigInt(Math.round(usdc * 1e6));
    const usdc = (u: bigint) => Number(u) / 1e6;
    type Pools = Record<string, { p: bigint; v: bigint }>;
    type Held = { key: string; o: string; stake: bigint; shares: bigint };
    const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n);
    const price = (pools: Pools, o: string) => Number(pools[o]!.p + pools[o]!.v) / Number(sum(Object.values(pools).map((x) => x.p + x.v)));
    /** shares = floor(a + O * ln(1 + a / S)), then P[o] += a. */
    const stakeOn = (pools: Pools, o: string, a: bigint) => {
      const s = pools[o]!.p + pools[o]!.v;
      const other = sum(Object.values(pools).map((x) => x.p + x.v)) - s;
      const shares = BigInt(Math.floor(Number(a) + Number(other) * Math.log1p(Number(a) / Number(s))));
      pools[o]!.p += a;
      return shares;
    };
    /** Winners: stake + floor(D * shares / H); fee = floor(L * 5%); dust to the protocol. No winner or cancelled: stakes back. */
    const settle = (pools: Pools, w: string | null, held: Held[]) => {
      const T = sum(Object.values(pools).map((x) => x.p));
      const payouts = new Map<string, bigint>();
      const add = (k: string, v: bigint) => payouts.set(k, (payouts.get(k) ?? 0n) + v);
      if (w === null || !held.some((p) => p.o === w)) {
        for (const p of held) add(p.key, p.stake);
        return { T, fee: 0n, dust: 0n, paid: T, payouts, refund: true };
      }
      const L = T - pools[w]!.p;
      const fee = (L * 500n) / 10000n;
      const D = L - fee;
      const H = sum(held.filter((p) => p.o === w).map((p) => p.shares));
      let share = 0n;
      for (const p of held.filter((x) => x.o === w)) {
        const part = (D * p.shares) / H;
        share += part;
        add(p.key, p.stake + part);
      }
      return { T, fee, dust: D - share, paid: sum([...payouts.values()]), payouts, refund: false };
    };
    const audit = async (step: string) => {
      const books = await ok(admin('GET', '/admin/audit'));
      assert.deepEqual([books.balanced, books.problems], [true, []], `GET /admin/audit after ${step}`);
      await assertBooksBalanced(app().deps.db);
    };

    it('an operator, a trader signing EIP-191 and a bot: create, feature, stake, page, withdraw, resolve and cancel, every number recomputed', async () => {
      const category = tag('j18');
      const ev = await ok(admin('POST', '/admin/events', { title: `Audit 18 journey ${category} ✓`, category, description: 'Ωmega 🚀' }), 201);
      const mkIn = async (fields: Record<string, unknown>) =>
        ok(admin('POST', '/admin/markets', { title: `Audit18 ${category} ${Math.random()}`, event_id: ev.id, end_date: endIn(7), ...fields }), 201);
      const yesno = await mkIn({ market_type: 'yesno', opening_prices: { yes: 0.45, no: 0.55 }, seed_liquidity: 150 });
      assert.deepEqual([yesno.seeds, yesno.prices], [{ yes: 67.5, no: 82.5 }, { yes: 0.45, no: 0.55 }]);
      const three = await mkIn({ market_type: 'threeway', seed_liquidity: '60.000003', opening_prices: { yes: 0.25, no: 0.25, draw: 0.5 } });
      const custom = await mkIn({ market_type: 'custom', outcome_labels: { yes: 'Up ↑', no: 'Down ↓' }, end_date: endIn(3) });
      await audit('creating');
      await ok(admin('POST', `/admin/markets/${yesno.id}/feature`));
      await ok(admin('POST', `/admin/events/${ev.id}/feature`));
      assert.equal((await ok(call('GET', '/api/markets/featured'))).data.id, yesno.id);
      const featuredEvent = (await ok(call('GET', '/api/events/featured'))).data;
      assert.deepEqual([featuredEvent.id, featuredEvent.markets_count, (featuredEvent.markets as unknown[]).length], [ev.id, 3, 3]);

      const books = new Map<number, { pools: Pools; held: Held[] }>();
      for (const m of [yesno, three, custom]) {
        books.set(m.id, { pools: Object.fromEntries(Object.entries(m.seeds as Record<string, number>).map(([o, v]) => [o, { p: 0n, v: units(v) }])), held: [] });
      }
      const person = await trader('250');
      const bot = await trader('80');
      const funded = new Map([[person.wallet, 250n * U], [bot.wallet, 80n * U]]);
      const spent = new Map([[person.wallet, 0n], [bot.wallet, 0n]]);
      const placedBy = new Map<string, number[]>([[person.wallet, []], [bot.wallet, []]]);
      const stakes: [Trader, MarketSigner, { id: number }, string, number][] = [
        [person, person.viaWallet, yesno, 'yes', 12.345678],
        [bot, bot.viaKey, yesno, 'no', 3],
        [person, person.viaWallet, three, 'draw', 40],
        [bot, bot.viaWallet, three, 'yes', 1],
        [bot, bot.viaKey, three, 'no', 9.999999],
        [person, person.viaWallet, custom, 'no', 2.5],
        [bot, bot.viaKey, yesno, 'yes', 20],
        [person, person.viaWallet, yesno, 'no', 100],
      ];
      for (const [w, signer, m, side, amount] of stakes) {
        const b = books.get(m.id)!;
        const a = units(amount);
        // The quote first, then the stake: the same numbers.
        const quote = (await ok(call('POST', '/api/pool/estimate', { market_id: m.id, side, amount }))).data;
        const shares = stakeOn(b.pools, side, a);
        b.held.push({ key: w.wallet, o: side, stake: a, shares });
        spent.set(w.wallet, spent.get(w.wallet)! + a);
        const answer = (await ok(trade(w, m.id, side, amount, {}, signer))).data;
        placedBy.get(w.wallet)!.push(answer.trade_id);
        const step = `${amount} on ${side} of market ${m.id}`;
        assert.deepEqual([answer.shares, quote.shares], [usdc(shares), usdc(shares)], step);
        assert.equal(answer.price, Number(a) / Number(shares), step);
        assert.equal(answer.new_yes_price, price(b.pools, 'yes'), step);
        assert.equal(answer.new_no_price, price(b.pools, 'no'), step);
        if (b.pools.draw) assert.equal(answer.new_draw_price, price(b.pools, 'draw'), step);
        assert.equal(answer.remaining_balance, usdc(funded.get(w.wallet)! - spent.get(w.wallet)!), step);
        // The pools answered are the real stakes, seeds aside (docs/api-decisions.md, the draw side of a trade).
        assert.deepEqual([answer.pool.yes_pool, answer.pool.no_pool, answer.pool.draw_pool], [usdc(b.pools.yes!.p), usdc(b.pools.no!.p), b.pools.draw ? usdc(b.pools.draw.p) : undefined], step);
        assert.equal(answer.pool.total_volume, usdc(sum(b.held.map((h) => h.stake))), step);
        // The quote's payout if it wins: stake + floor(D * shares / H) on the market after the stake.
        const T = sum(Object.values(b.pools).map((x) => x.p));
        const D = T - b.pools[side]!.p - ((T - b.pools[side]!.p) * 500n) / 10000n;
        const H = sum(b.held.filter((h) => h.o === side).map((h) => h.shares));
        assert.equal(quote.payout_if_win, usdc(a + (D * shares) / H), step);
        const read = (await ok(call('GET', `/api/markets/${m.id}/price`))).data;
        assert.deepEqual([read.yes_price, read.no_price, read.volume], [price(b.pools, 'yes'), price(b.pools, 'no'), usdc(sum(b.held.map((h) => h.stake)))], step);
        await audit(step);
      }
      // The event's total is the volume of its markets.
      const event = (await ok(call('GET', `/api/events/${ev.id}`))).data;
      assert.equal(event.total_volume, usdc(sum([...books.values()].flatMap((b) => b.held.map((h) => h.stake)))));
      // The bot reads its fills by cursor while the trader keeps trading: each once, newest first.
      const fills: number[] = [];
      let cursor: number | undefined;
      for (let round = 0; round < 10; round++) {
        const page = await ok(call('GET', `/api/trades?wallet=${bot.wallet}&limit=2${cursor === undefined ? '' : `&cursor=${cursor}`}`));
        const ids = idsOf(page);
        if (ids.length === 0) break;
        fills.push(...ids);
        cursor = ids.at(-1);
        await ok(trade(bot, custom.id, 'yes', 1));
        const b = books.get(custom.id)!;
        b.held.push({ key: bot.wallet, o: 'yes', stake: U, shares: stakeOn(b.pools, 'yes', U) });
        spent.set(bot.wallet, spent.get(bot.wallet)! + U);
      }
      assert.deepEqual(fills, [...placedBy.get(bot.wallet)!].reverse());
      await audit('the bot paging');
      // The bot pages the event's category by cursor, by volume: each of the three once.
      const byVolume = idsOf(await ok(call('GET', `/api/markets?category=${category}&sort=volume&limit=100`)));
      const paged: number[] = [];
      let mc: number | undefined;
      for (let round = 0; round < 5; round++) {
        const ids = idsOf(await ok(call('GET', `/api/markets?category=${category}&sort=volume&limit=1${mc === undefined ? '' : `&cursor=${mc}`}`)));
        if (ids.length === 0) break;
        paged.push(...ids);
        mc = ids.at(-1);
      }
      assert.deepEqual(paged, byVolume);
      assert.equal(new Set(paged).size, 3);

      // The trader withdraws part: locked until the chain confirms; the books hold.
      const wd = await send(person.viaWallet, { method: 'POST', url: '/api/pool/withdraw', body: { wallet_addr: person.wallet, amount: 10 } });
      assert.equal(wd.status, 200, JSON.stringify(wd.body));
      const before = (await ok(call('GET', `/api/pool/balance/${person.wallet}`))).data;
      const left = funded.get(person.wallet)! - spent.get(person.wallet)!;
      assert.deepEqual([before.balance, before.locked, before.available], [usdc(left), 10, usdc(left - 10n * U)]);
      await audit('the withdrawal');

      // Settle: yesno to no, threeway to yes, custom cancelled; each recomputed.
      const received = new Map([[person.wallet, 0n], [bot.wallet, 0n]]);
      const settleOne = async (m: { id: number }, how: 'resolve' | 'cancel', outcome?: string) => {
        const b = books.get(m.id)!;
        const r = settle(b.pools, how === 'cancel' ? null : outcome!, b.held);
        const answer = await ok(admin('POST', `/admin/markets/${m.id}/${how}`, outcome ? { outcome } : undefined));
        const step = `${how} ${outcome ?? ''} of market ${m.id}`;
        assert.deepEqual(
          [answer.settlement.total, answer.settlement.paid, answer.settlement.fee, answer.settlement.dust, answer.escrow],
          [usdc(r.T), usdc(r.paid), usdc(r.fee), usdc(r.dust), 0],
          step,
        );
        assert.equal(r.paid + r.fee + r.dust, r.T, step);
        for (const w of [person, bot]) {
          const got = r.payouts.get(w.wallet) ?? 0n;
          received.set(w.wallet, received.get(w.wallet)! + got);
          const entries = (await ok(call('GET', `/api/pool/ledger/${w.wallet}?type=${r.refund ? 'refund' : 'settlement'}`))).data as { amount: number; market_id: number }[];
          assert.equal(sum(entries.filter((e) => e.market_id === m.id).map((e) => units(e.amount))), got, `${step}: ledger of ${w.wallet}`);
          const bal = (await ok(call('GET', `/api/pool/balance/${w.wallet}`))).data;
          assert.equal(bal.balance, usdc(funded.get(w.wallet)! - spent.get(w.wallet)! + received.get(w.wallet)!), `${step}: balance of ${w.wallet}`);
        }
        await audit(step);
      };
      await settleOne(yesno, 'resolve', 'no');
      // A settled market is featured no more.
      assert.equal((await ok(call('GET', '/api/markets/featured'))).data, null);
      await settleOne(three, 'resolve', 'yes');
      assert.equal((await ok(call('GET', `/api/events/${ev.id}`))).data.status, 'active');
      await settleOne(custom, 'cancel');
      assert.equal((await ok(call('GET', `/api/events/${ev.id}`))).data.status, 'resolved');
      assert.equal((await ok(call('GET', '/api/events/featured'))).data, null);
      // Results: realized P&L is what came back minus what was staked.
      for (const w of [person, bot]) {
        const stats = (await ok(call('GET', `/api/portfolio/${w.wallet}/stats`))).data;
        const pnl = usdc(received.get(w.wallet)! - spent.get(w.wallet)!);
        assert.deepEqual([stats.open_positions, stats.realized_pnl, stats.total_pnl, stats.total_volume], [0, pnl, pnl, usdc(spent.get(w.wallet)!)], w.wallet);
        assert.deepEqual((await ok(call('GET', `/api/portfolio/${w.wallet}`))).data, []);
        const profile = (await ok(call('GET', `/api/users/${w.wallet}`))).data;
        assert.deepEqual([profile.total_pnl, profile.total_volume], [pnl, usdc(spent.get(w.wallet)!)]);
      }
    });
  });

  describe('odd input on every parameter', () => {
    const LONG = 'x'.repeat(10_000);
    const odd = ['abc', '-1', '0', '1.5', '1e20', '2147483648', '99999999999999999999999', '', '%F0%9F%9A%80', '%C3%BFes', '%00', '%E0%A4%A', LONG, 'true', '[1]', '0x12'];
    /** A refusal in the documented shape whose message names `name` (or the path's thing). */
    const refused = async (path: string, names: readonly string[], init?: { method: string; body?: unknown }) => {
      const a = init ? await call(init.method, path, init.body) : await call('GET', path);
      assert.ok(a.status >= 400 && a.status < 500, `${path}: ${a.status} ${JSON.stringify(a.body).slice(0, 300)}`);
      assert.equal(a.body.success, false, path);
      assert.equal(typeof a.body.error, 'string', path);
      assert.ok(names.some((n) => a.body.error.includes(n)), `${path}: ${a.body.error} names none of ${names.join(', ')}`);
    };
    it('list and read parameters: each odd value is a 4xx naming the parameter, a repeat says so', async () => {
      const m = await mk(tag('odd18'));
      const w = await trader('1');
      const lists: [string, string[]][] = [
        ['/api/markets', ['status', 'active', 'closed', 'category', 'market_type', 'sort', 'page', 'limit', 'offset', 'cursor']],
        ['/api/events', ['status', 'active', 'closed', 'page', 'limit', 'offset', 'cursor']],
        ['/api/trades', ['market', 'wallet', 'user', 'min_ts', 'max_ts', 'after', 'before', 'cursor', 'page', 'limit', 'offset']],
        [`/api/pool/ledger/${w.wallet}`, ['limit', 'type', 'before']],
        [`/api/markets/${m.id}/history`, ['interval', 'fidelity', 'startTs', 'endTs', 'outcome']],
        ['/api/users/leaderboard', ['sort', 'limit']],
      ];
      const problems: string[] = [];
      for (const [path, params] of lists) {
        for (const name of params) {
          for (const v of odd) {
            const url = `${path}?${name}=${v}`;
            const a = await call('GET', url);
            if (a.status === 200) continue; // some values are valid (0 offset, true flags, a 0x wallet?): checked below
            if (!(a.status >= 400 && a.status < 500) || a.body.success !== false || typeof a.body.error !== 'string' || !a.body.error.includes(name))
              problems.push(`${url.slice(0, 120)} -> ${a.status} ${JSON.stringify(a.body).slice(0, 200)}`);
          }
          const twice = await call('GET', `${path}?${name}=1&${name}=1`);
          if (twice.status !== 400 || twice.body.error !== `Invalid ${name}: given more than once`) problems.push(`${path} ${name} twice -> ${twice.status} ${JSON.stringify(twice.body)}`);
        }
      }
      assert.deepEqual(problems, []);
    });
    it('path parameters, ids, q and search: never a 500, always the documented shape', async () => {
      const problems: string[] = [];
      const seen: string[] = [];
      const paths = (v: string) => [
        `/api/markets/${v}`,
        `/api/markets/${v}/price`,
        `/api/markets/${v}/history`,
        `/api/events/${v}`,
        `/api/pool/balance/${v}`,
        `/api/pool/ledger/${v}`,
        `/api/portfolio/${v}`,
        `/api/portfolio/${v}/stats`,
        `/api/users/${v}`,
        `/api/users/check-username/${v}`,
        `/api/markets/prices?ids=${v}`,
        `/api/markets/prices?ids=1,${v}`,
        `/api/search?q=${v}`,
        `/api/markets?q=${v}`,
      ];
      for (const v of [...odd, '0X' + 'a'.repeat(40), '0x' + 'g'.repeat(40), '0x' + 'A'.repeat(40), '%20', '..', '1,,2', ',', '1%2C2']) {
        for (const url of paths(v)) {
          const a = await call('GET', url);
          seen.push(`${a.status} ${url.slice(0, 90)} ${JSON.stringify(a.body).slice(0, 140)}`);
          if (a.status >= 500 || (a.status !== 200 && (a.body.success !== false || typeof a.body.error !== 'string'))) problems.push(seen.at(-1)!);
        }
      }
      if (process.env.AUDIT18_SHOW) console.log(seen.filter((x) => !x.startsWith('200')).join('\n'));
      assert.deepEqual(problems, []);
    });

    it('an empty username to check is checked as one, not taken for a wallet', async () => {
      // `/api/users/check-username/` routes as `/api/users/check-username` (the trailing slash is
      // dropped), which `/api/users/:wallet` took for a malformed wallet.
      const blank = await ok(call('GET', '/api/users/check-username/%20'));
      const empty = await ok(call('GET', '/api/users/check-username/'));
      assert.deepEqual(empty, { success: true, data: { ...blank.data, username: '' } });
      assert.deepEqual([empty.data.valid, empty.data.available], [false, false]);
      assert.deepEqual(await ok(call('GET', '/api/users/check-username')), empty);
      await refused('/api/users/check-username/%00', ['username']);
    });

    it("the operator's ids are decimal digits: 0x10 or 1e1 is not another market's id", async () => {
      const category = tag('adm18');
      const target = await mk(category);
      const ev = await ok(admin('POST', '/admin/events', { title: `Audit18 ${category}`, category }), 201);
      const w = await trader('5');
      await ok(trade(w, target.id, 'yes', 2));
      const hex = `0x${target.id.toString(16)}`;
      const bad = { status: 400, body: { error: 'invalid id: must be integer' } };
      for (const spelled of [hex, `${target.id}e0`, `${target.id}.0`, `+${target.id}`, `%20${target.id}`, `0b${target.id.toString(2)}`]) {
        assert.deepEqual(await admin('POST', `/admin/markets/${spelled}/cancel`), bad, spelled);
        assert.deepEqual(await admin('POST', `/admin/markets/${spelled}/resolve`, { outcome: 'yes' }), bad, spelled);
        assert.deepEqual(await admin('PATCH', `/admin/markets/${spelled}`, { description: 'moved' }), bad, spelled);
        assert.deepEqual(await admin('POST', `/admin/markets/${spelled}/feature`), bad, spelled);
        assert.deepEqual(await admin('POST', `/admin/events/0x${ev.id.toString(16)}/feature`), bad, spelled);
        assert.deepEqual(await admin('GET', `/admin/withdrawals/${spelled}`), bad, spelled);
        assert.deepEqual(await admin('GET', `/admin/withdrawals?before=${spelled}`), { status: 400, body: { error: 'invalid before: must be integer' } }, spelled);
      }
      // Nothing moved; the decimal id still works, leading zeros included.
      const read = (await ok(call('GET', `/api/markets/${target.id}`))).data;
      assert.deepEqual([read.status, read.description, read.featured], ['active', '', false]);
      assert.equal((await ok(admin('POST', `/admin/markets/0${target.id}/feature`))).id, target.id);
    });

    it('estimate and trade bodies: each odd field is a 400 naming it', async () => {
      const m = await mk(tag('oddb18'));
      const values: unknown[] = ['abc', -1, 0, 1.5, 1e20, 1e308, 2147483648, '', '🚀', 'ÿes', null, true, [1], { a: 1 }, 'x'.repeat(10_000), '1', 'YES', ' yes', 0.0000001, -0];
      const seen: string[] = [];
      const problems: string[] = [];
      for (const field of ['market_id', 'side', 'amount', 'wallet_addr'] as const) {
        // A wallet and a supply of signing seconds per field (a signature names its second).
        const w = await trader('5');
        const sign = marketOverSocket(base).send;
        const valid = { wallet_addr: w.wallet, market_id: m.id, side: 'yes', amount: 1 };
        for (const v of values) {
          const body = { ...valid, [field]: v };
          const { wallet_addr: _, ...quote } = body;
          const est = field === 'wallet_addr' ? null : await call('POST', '/api/pool/estimate', quote);
          const tr = await sign(w.viaKey, { method: 'POST', url: '/api/pool/trade', body });
          for (const [what, a] of [['estimate', est], ['trade', tr]] as const) {
            if (!a) continue;
            const line = `${what} ${field}=${JSON.stringify(v).slice(0, 30)} -> ${a.status} ${JSON.stringify(a.body).slice(0, 160)}`;
            seen.push(line);
            if (a.status === 200) continue;
            const documented = ['Invalid side', 'Minimum trade is 1 USDC', 'Maximum trade is 1000000000 USDC'];
            if (a.status !== 400 || a.body.success !== false || !(documented.includes(a.body.error) || a.body.error.startsWith(`invalid ${field}: `))) problems.push(line);
          }
        }
      }
      if (process.env.AUDIT18_SHOW) console.log(seen.join('\n'));
      assert.deepEqual(problems, []);
    });
  });
});
