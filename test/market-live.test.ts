import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { DatabaseHandle } from '../src/storage/database.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { freshDatabase, openSameDatabase } from './helpers/database.ts';
import { assertBooksBalanced, manualClock, onServer } from './helpers/market.ts';
import { nowSeconds, signedRequest } from './helpers/market-client.ts';
import { marketHttp, type Trader } from './helpers/market-http.ts';
import { waitFor } from './helpers/wait.ts';

const clock = manualClock(Date.now());
type Body = { success: boolean; data: Record<string, unknown> & { id?: number } };

/**
 * Reads are exact at once after a trade on the same instance, and soon after one on another
 * instance (LISTEN/NOTIFY); the reused answers carry ETags and answer If-None-Match with 304.
 */
describe(`market reads stay current (${onServer ? 'PostgreSQL server' : 'PGlite'}, two instances)`, () => {
  const env = { RATE_LIMIT_MARKET_PER_MINUTE: '1000000', SECRETS_KEY: randomBytes(32).toString('base64') };
  const redisPrefix = `t${randomBytes(6).toString('hex')}`;
  let database: DatabaseHandle & { url: string | null };
  let second: DatabaseHandle | null = null;
  let a: TestApp;
  let b: TestApp;
  let m: ReturnType<typeof marketHttp>;
  let trader: Trader;

  before(async () => {
    database = await freshDatabase();
    a = await startTestApp({ database, clock, redisPrefix, env });
    second = database.url ? await openSameDatabase(database.url) : null;
    b = await startTestApp({ database: second ? { ...second, url: database.url } : database, clock, redisPrefix, env });
    m = marketHttp(a, clock);
    trader = await m.trader('1000');
  });
  after(async () => {
    await a?.close();
    await b?.close();
    if (second) await second.close();
    await database.close();
  });

  const get = async (t: TestApp, url: string, headers: Record<string, string> = {}) => {
    const r = await t.app.inject({ url, headers });
    return { status: r.statusCode, etag: r.headers.etag as string | undefined, body: r.statusCode === 200 ? (r.json() as Body) : null };
  };
  const trade = async (marketId: number, side: string, amount: number) => {
    const r = await m.trade(trader.viaKey, { wallet_addr: trader.wallet, market_id: marketId, side, amount });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return (r.body as { data: { new_yes_price: number; pool: { total_volume: number } } }).data;
  };

  it('shows a trade in the very next read on the same instance: price, batch prices, market, list', async () => {
    const { id } = await m.createMarket();
    const urls = [`/api/markets/${id}/price`, `/api/markets/prices?ids=${id}`, `/api/markets/${id}`, '/api/markets?sort=volume&limit=100'];
    for (const u of urls) await get(a, u); // now held for reuse
    for (const amount of [5, 7, 11]) {
      const t = await trade(id, 'yes', amount);
      const price = (await get(a, urls[0]!)).body!.data;
      assert.equal(price.yes_price, t.new_yes_price);
      assert.equal(price.volume, t.pool.total_volume);
      const batch = (await get(a, urls[1]!)).body!.data[String(id)] as { yes_price: number };
      assert.equal(batch.yes_price, t.new_yes_price);
      assert.equal((await get(a, urls[2]!)).body!.data.yes_price, t.new_yes_price);
      const list = (await get(a, urls[3]!)).body!.data as unknown as { id: number; yes_price: number; volume_24h: number }[];
      const item = list.find((x) => x.id === id)!;
      assert.equal(item.yes_price, t.new_yes_price);
      assert.equal(item.volume_24h, t.pool.total_volume);
    }
  });

  it('answers If-None-Match with 304 until the answer changes, on the list, market, price and batch price', async () => {
    const { id } = await m.createMarket();
    const urls = ['/api/markets?limit=5', `/api/markets/${id}`, `/api/markets/${id}/price`, `/api/markets/prices?ids=${id}`];
    const tags = new Map<string, string>();
    for (const u of urls) {
      const first = await get(a, u);
      assert.equal(first.status, 200);
      assert.match(first.etag ?? '', /^"[A-Za-z0-9_-]+"$/, u);
      tags.set(u, first.etag!);
      const again = await get(a, u, { 'if-none-match': first.etag! });
      assert.equal(again.status, 304, u);
      assert.equal(again.etag, first.etag);
      assert.equal((await get(a, u, { 'if-none-match': `W/${first.etag!}, "other"` })).status, 304, `${u} (weak, in a list)`);
      assert.equal((await get(a, u, { 'if-none-match': '"other"' })).status, 200, u);
    }
    await trade(id, 'no', 3);
    for (const u of urls) {
      const after = await get(a, u, { 'if-none-match': tags.get(u)! });
      assert.equal(after.status, 200, `${u} changed with the trade`);
      assert.notEqual(after.etag, tags.get(u));
    }
  });

  it('shows a trade on the other instance soon after its answer (LISTEN/NOTIFY)', async () => {
    const { id } = await m.createMarket();
    await b.deps.marketFeed.barrier();
    const url = `/api/markets/${id}/price`;
    const before = (await get(b, url)).body!.data.yes_price;
    const latencies: number[] = [];
    for (const amount of [4, 6, 9]) {
      const t = await trade(id, 'yes', amount);
      const answered = performance.now();
      let seen: unknown;
      // Waits for the condition; the time it took is logged, not asserted.
      await waitFor(async () => (seen = (await get(b, url)).body!.data.yes_price) === t.new_yes_price, {
        message: () => `the other instance shows yes_price ${String(seen)}, not the trade's ${t.new_yes_price}`,
        everyMs: 2,
      });
      latencies.push(performance.now() - answered);
      assert.equal(seen, t.new_yes_price);
      assert.notEqual(seen, before);
    }
    console.log(`# other instance saw each trade after ${latencies.map((x) => x.toFixed(1)).join(', ')} ms`);
  });

  it('moves the 24-hour figures with the clock alone: an answer is reused only until a trade leaves its window', async () => {
    const { id } = await m.createMarket({ end_date: new Date(clock.now() + 60 * 86_400_000).toISOString() });
    await trade(id, 'yes', 10);
    const url = `/api/markets/${id}/price`;
    const fresh = (await get(a, url)).body!.data as { volume_24h: number; change: Record<string, number> };
    assert.equal(fresh.volume_24h, 10);
    assert.notEqual(fresh.change['1h'], 0);
    clock.advance(3_600_000);
    assert.equal(((await get(a, url)).body!.data as typeof fresh).change['1h'], 0, 'an hour later the 1h change is 0');
    clock.advance(86_400_000);
    const later = (await get(a, url)).body!.data as typeof fresh;
    assert.equal(later.volume_24h, 0, 'a day later the trade has left volume_24h');
    assert.equal(later.change['1d'], 0);
    const list = (await get(a, '/api/markets?sort=trending&limit=100')).body!.data as unknown as { id: number; volume_24h: number }[];
    assert.equal(list.find((x) => x.id === id)!.volume_24h, 0);
    await assertBooksBalanced(a.deps.db);
  });

  it('answers an identical retry of a completed request (same signature, same Idempotency-Key) with the stored answer', async () => {
    const { id } = await m.createMarket();
    clock.advance(1000);
    const body = { wallet_addr: trader.wallet, market_id: id, side: 'yes', amount: 2 };
    const signed = await signedRequest(trader.viaKey, { method: 'POST', url: '/api/pool/trade', body, timestamp: nowSeconds(clock.now()), headers: { 'idempotency-key': 'retry-1' } });
    const first = await a.app.inject(signed);
    assert.equal(first.statusCode, 200);
    const again = await b.app.inject(signed);
    assert.equal(again.statusCode, 200);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(again.json(), first.json());
    const { 'idempotency-key': _, ...unkeyed } = signed.headers as Record<string, string>;
    void _;
    const noKey = await a.app.inject({ ...signed, headers: unkeyed });
    assert.equal(noKey.statusCode, 401);
    assert.deepEqual(noKey.json(), { success: false, error: 'Signature already used' });
    const n = await a.deps.db.selectFrom('trades').select('id').where('market_id', '=', id).execute();
    assert.equal(n.length, 1);
  });
});
