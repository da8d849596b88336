import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { request } from 'undici';
import type { CommittedTrade } from '../src/market/trading/place-trades.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { manualClock, USDC } from './helpers/market.ts';
import { marketHttp, type Trader } from './helpers/market-http.ts';
import { sseReader } from './helpers/sse-reader.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const clock = manualClock(Date.now());

describe('market stream: GET /api/stream (Server-Sent Events)', () => {
  let t: TestApp;
  let m: ReturnType<typeof marketHttp>;
  let trader: Trader;
  const open: { destroy(): void }[] = [];

  before(async () => {
    t = await startTestApp({
      clock,
      env: { RATE_LIMIT_MARKET_PER_MINUTE: '1000000', MARKET_STREAM_PER_IP: '1000', MARKET_STREAM_MAX_BUFFERED_BYTES: '65536' },
    });
    await t.listen();
    m = marketHttp(t, clock);
    trader = await m.trader('1000');
  });
  after(async () => {
    for (const s of open) s.destroy();
    await t?.close();
  });

  async function subscribe(query = '', headers: Record<string, string> = {}) {
    const ac = new AbortController();
    const res = await request(`${t.url}/api/stream${query}`, { headers, signal: ac.signal });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/event-stream/);
    open.push({ destroy: () => ac.abort() });
    return { ...sseReader(res.body as AsyncIterable<Buffer>), close: () => ac.abort() };
  }
  const trade = async (marketId: number, amount: number) => {
    const r = await m.trade(trader.viaKey, { wallet_addr: trader.wallet, market_id: marketId, side: 'yes', amount });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return (r.body as { data: { trade_id: number; new_yes_price: number } }).data;
  };

  it("puts a trade on a subscriber's stream: the trade, then its prices with the trade id as event id", async () => {
    const { id } = await m.createMarket();
    const other = await m.createMarket();
    const s = await subscribe(`?markets=${id}`);
    await trade(other.id, 2);
    const done = await trade(id, 5);
    const answered = performance.now();
    const price = await s.until((e) => e.event === 'price' && e.id === String(done.trade_id));
    console.log(`# the price event arrived ${(performance.now() - answered).toFixed(1)} ms after the trade's answer`);
    assert.deepEqual(JSON.parse(price.data!).yes_price, done.new_yes_price);
    const tradeEvent = s.events.find((e) => e.event === 'trade')!;
    assert.equal(tradeEvent.id, undefined);
    assert.deepEqual({ ...JSON.parse(tradeEvent.data!), timestamp: 'x', price: 0 }, {
      id: done.trade_id, market_id: id, wallet: trader.wallet.toLowerCase(), side: 'YES', amount: 5, shares: JSON.parse(tradeEvent.data!).shares, price: 0, timestamp: 'x',
      tx_hash: JSON.parse(tradeEvent.data!).tx_hash,
    });
    assert.match(JSON.parse(tradeEvent.data!).tx_hash, /^0x[0-9a-f]{64}$/);
    assert.ok(!s.events.some((e) => e.data?.includes(`"market_id":${other.id}`)), 'only the markets asked for');
    s.close();
  });

  it('resumes after Last-Event-ID without missing anything, and says reset when the id is not in the buffer', async () => {
    const { id } = await m.createMarket();
    const s = await subscribe(`?markets=${id}`);
    const first = [await trade(id, 1), await trade(id, 2), await trade(id, 3)];
    await s.until((e) => e.id === String(first[2]!.trade_id));
    s.close();
    const missed = [await trade(id, 4), await trade(id, 5)];
    const resumed = await subscribe(`?markets=${id}`, { 'last-event-id': String(first[2]!.trade_id) });
    await resumed.until((e) => e.id === String(missed[1]!.trade_id));
    assert.deepEqual(
      resumed.events.map((e) => `${e.event}:${JSON.parse(e.data!).id ?? JSON.parse(e.data!).trade_id}`),
      missed.flatMap((x) => [`trade:${x.trade_id}`, `price:${x.trade_id}`]),
    );
    resumed.close();
    const lost = await subscribe(`?markets=${id}`, { 'last-event-id': '999999999' });
    await lost.until((e) => e.event === 'reset');
    lost.close();
  });

  it('refuses bad parameters with 400 naming them', async () => {
    const r = await t.app.inject('/api/stream?markets=1,x');
    assert.equal(r.statusCode, 400);
    assert.match(r.json().error, /^Invalid markets/);
    const h = await t.app.inject({ url: '/api/stream', headers: { 'last-event-id': 'abc' } });
    assert.equal(h.statusCode, 400);
    assert.match(h.json().error, /^Invalid Last-Event-ID/);
  });

  /** A raw client that sends the request and never reads. */
  function rawSubscriber(): Promise<Socket> {
    const url = new URL(t.url);
    return new Promise((resolve, reject) => {
      const sock = connect(Number(url.port), url.hostname, () => {
        sock.write(`GET /api/stream HTTP/1.1\r\nHost: ${url.host}\r\nAccept: text/event-stream\r\n\r\n`);
        resolve(sock);
      });
      sock.on('error', () => {});
      sock.once('error', reject);
      open.push(sock);
    });
  }
  const fakeTrades = (from: number, n: number): CommittedTrade[] =>
    Array.from({ length: n }, (_, k) => ({
      id: from + k,
      marketId: 2_000_000_000,
      wallet: '0x' + 'ab'.repeat(20),
      outcome: 'yes',
      amount: 12_345_678n,
      shares: 23_456_789n,
      price: 0.5263157894736842,
      pricesAfter: { yes: 0.5123456789012345, no: 0.4876543210987655 },
      at: new Date(clock.now()),
    }));
  const waitFor = async (pred: () => boolean) => {
    const deadline = Date.now() + 30_000;
    while (!pred()) {
      if (Date.now() > deadline) throw new Error('condition not reached');
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  it('cuts off a reader that never reads, without growing the heap', async () => {
    const stream = t.deps.marketStream;
    await waitFor(() => stream.stats().readers === 0); // the earlier tests' streams are closed
    const readers = 0;
    const sock = await rawSubscriber();
    sock.pause();
    await waitFor(() => stream.stats().readers === readers + 1);
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const cutBefore = stream.stats().cutOff;
    let sent = 0;
    // Far more than the socket buffers hold: the server must stop writing to this reader.
    while (stream.stats().cutOff === cutBefore && sent < 400_000) {
      t.deps.marketFeed.committed(fakeTrades(1_000_000_000 + sent, 2000));
      sent += 2000;
      await new Promise((r) => setImmediate(r));
    }
    gc();
    const grew = process.memoryUsage().heapUsed - heapBefore;
    console.log(`# cut off after ${sent} events (~${((sent * 420) / 1e6).toFixed(1)} MB written); heap grew ${(grew / 1e6).toFixed(1)} MB (replay buffer included)`);
    assert.equal(stream.stats().cutOff, cutBefore + 1);
    assert.equal(stream.stats().readers, readers);
    assert.ok(grew < 32e6, `heap grew ${grew} bytes`);
  });

  it('holds 1,000 idle subscribers cheaply, and refuses one more from the same address (429)', async () => {
    const stream = t.deps.marketStream;
    const base = stream.stats().readers;
    gc();
    const before = process.memoryUsage();
    const socks: Socket[] = [];
    for (let i = 0; i < 1000 - base; i += 50) socks.push(...(await Promise.all(Array.from({ length: Math.min(50, 1000 - base - i) }, () => rawSubscriber()))));
    await waitFor(() => stream.stats().readers === 1000);
    gc();
    const afterOpen = process.memoryUsage();
    const heap = afterOpen.heapUsed - before.heapUsed;
    const rss = afterOpen.rss - before.rss;
    console.log(`# 1,000 idle subscribers: heap +${(heap / 1e6).toFixed(1)} MB, rss +${(rss / 1e6).toFixed(1)} MB (server and client sockets in one process)`);
    assert.ok(heap < 50e6, `heap grew ${heap} bytes`);
    const refused = await request(`${t.url}/api/stream`);
    assert.equal(refused.statusCode, 429);
    assert.deepEqual(await refused.body.json(), { success: false, error: 'Too many open streams' });
    for (const s of socks) s.destroy();
    await waitFor(() => stream.stats().readers === base);
    assert.ok(USDC > 0n);
  });
});
