import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { startMarketOverSocket, marketOverSocket } from './helpers/market-socket.ts';
import type { TestApp } from './helpers/app.ts';
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
  let t: TestApp;
  let base: string;
  before(async () => {
    ({ t, base } = await startMarketOverSocket());
  });
  after(async () => {
    await t?.close();
  });
  afterEach(() => assertBooksBalanced(t.deps.db));

  const { call, admin, ok, trader, endIn } = marketOverSocket(() => base);
  let send: ReturnType<typeof marketOverSocket>['send'];
  beforeEach(() => {
    send = marketOverSocket(() => base).send;
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
});
