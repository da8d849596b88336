import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { marketRead } from './helpers/market-http.ts';
import { type MarketFixtures, marketFixtures, randomWallet } from './helpers/market-fixtures.ts';

const NOW = Date.parse('2026-06-01T12:00:00.000Z');
const H = 3_600_000;
const D = 24 * H;
const ago = (ms: number) => new Date(NOW - ms);

describe('market reads: events and trades', () => {
  let t: TestApp;
  let fx: MarketFixtures;
  let e1: { id: number; slug: string };
  let e2: { id: number; slug: string };
  let e3: { id: number; slug: string };
  let mA: number;
  let mB: number;
  let mC: number;
  const W1 = randomWallet();
  const W2 = randomWallet();
  const trades: { id: number; shares: bigint; price: number }[] = [];

  const get = (url: string) => marketRead(t, url);

  before(async () => {
    t = await startTestApp({ clock: { now: () => NOW } });
    fx = marketFixtures(t.deps.db);
    e1 = await fx.event({
      title: 'World Cup 2026',
      slug: 'world-cup-2026',
      category: 'sports',
      description: 'Who lifts the trophy',
      created_at: ago(30 * D),
      featured_at: ago(2 * D),
      end_date: new Date(NOW + 40 * D),
      image_url: '/img/wc.png',
    });
    e2 = await fx.event({ title: 'Old vote', slug: '12345', status: 'resolved', created_at: ago(10 * D) });
    e3 = await fx.event({ title: 'Fed rates', slug: 'fed-rates', category: 'economy', created_at: ago(5 * D), featured_at: ago(5 * D) });
    mA = await fx.market({ title: 'Brazil wins', event_id: e1.id, created_at: ago(29 * D) });
    mB = await fx.market({ title: 'France wins', event_id: e1.id, created_at: ago(28 * D) });
    mC = await fx.market({ title: 'Rate cut in June', event_id: e3.id, created_at: ago(4 * D) });
    // Upper case in the fixture: stored and shown lower case.
    trades.push(await fx.trade(mA, W1.toUpperCase().replace('0X', '0x'), 'yes', 10, ago(3 * D)));
    trades.push(await fx.trade(mB, W2, 'no', 20, ago(2 * D)));
    trades.push(await fx.trade(mA, W2, 'no', '2.5', ago(1 * H)));
    trades.push(await fx.trade(mC, W1, 'yes', 1, ago(30 * 60_000)));
  });

  after(async () => {
    await t.close();
  });

  it('GET /api/events lists Event items newest first with counts and volume', async () => {
    const { status, body } = await get('/api/events');
    assert.equal(status, 200);
    assert.equal(body.total, 3);
    assert.equal(body.page, 1);
    assert.equal(body.limit, 20);
    assert.deepEqual(
      body.data.map((e: { id: number }) => e.id),
      [e3.id, e2.id, e1.id],
    );
    assert.deepEqual(body.data[2], {
      id: e1.id,
      title: 'World Cup 2026',
      slug: 'world-cup-2026',
      description: 'Who lifts the trophy',
      category: 'sports',
      image_url: '/img/wc.png',
      status: 'active',
      end_date: new Date(NOW + 40 * D).toISOString(),
      created_at: ago(30 * D).toISOString(),
      markets_count: 2,
      total_volume: 32.5,
    });
    assert.equal(body.data[1].end_date, ''); // neither an end date nor markets: a string still (docs/decisions-market-reads.md)
    assert.equal(body.data[1].markets_count, 0);
    assert.equal(body.data[1].total_volume, 0);

    const resolved = await get('/api/events?status=resolved');
    assert.deepEqual(
      resolved.body.data.map((e: { id: number }) => e.id),
      [e2.id],
    );
    assert.equal(resolved.body.total, 1);
    const active = await get('/api/events?status=active&limit=1&page=2');
    assert.deepEqual(
      active.body.data.map((e: { id: number }) => e.id),
      [e1.id],
    );
    assert.equal(active.body.total, 2);
  });

  it('GET /api/events/featured gives the most recently featured event with its markets', async () => {
    const { status, body } = await get('/api/events/featured');
    assert.equal(status, 200);
    assert.equal(body.data.id, e1.id);
    assert.equal(body.data.markets_count, 2);
    // Its markets as Market items, most traded first.
    assert.deepEqual(
      body.data.markets.map((m: { id: number }) => m.id),
      [mB, mA],
    );
    assert.equal(body.data.markets[1].volume, 12.5);
    assert.equal(body.data.markets[1].volume_24h, 2.5);
  });

  it('GET /api/events/:slugOrId finds an event by id or by slug, numeric slugs included', async () => {
    const byId = await get(`/api/events/${e3.id}`);
    assert.equal(byId.status, 200);
    assert.equal(byId.body.data.slug, 'fed-rates');
    assert.deepEqual(
      byId.body.data.markets.map((m: { id: number }) => m.id),
      [mC],
    );
    const bySlug = await get('/api/events/world-cup-2026');
    assert.equal(bySlug.body.data.id, e1.id);
    const numericSlug = await get('/api/events/12345');
    assert.equal(numericSlug.status, 200);
    assert.equal(numericSlug.body.data.id, e2.id);
    assert.deepEqual(numericSlug.body.data.markets, []);
    for (const missing of ['/api/events/999999', '/api/events/no-such-event', '/api/events/99999999999999999999']) {
      const r = await get(missing);
      assert.equal(r.status, 404, missing);
      assert.deepEqual(r.body, { success: false, error: 'Event not found' });
    }
  });

  it('GET /api/trades lists Trade records newest first, side upper case, of all or one market', async () => {
    const { status, body } = await get('/api/trades');
    assert.equal(status, 200);
    assert.equal(body.total, 4);
    assert.deepEqual(
      body.data.map((x: { id: number }) => x.id),
      [trades[3]!.id, trades[2]!.id, trades[1]!.id, trades[0]!.id],
    );
    const last = body.data[1];
    assert.deepEqual(last, {
      id: trades[2]!.id,
      market_id: mA,
      wallet: W2,
      side: 'NO',
      amount: 2.5,
      price: trades[2]!.price,
      shares: Number(trades[2]!.shares) / 1e6,
      timestamp: ago(1 * H).toISOString(),
      // The trade's receipt (pool trades are not on chain): sha256 of its record, units and ms.
      tx_hash:
        '0x' +
        createHash('sha256')
          .update(`svc-trade v1 ${trades[2]!.id} ${mA} ${W2} no 2500000 ${trades[2]!.shares} ${ago(1 * H).getTime()}`)
          .digest('hex'),
    });
    assert.equal(body.data[3].wallet, W1.toLowerCase());
    assert.equal(body.data[3].side, 'YES');

    const one = await get(`/api/trades?market=${mA}`);
    assert.equal(one.body.total, 2);
    assert.deepEqual(
      one.body.data.map((x: { id: number }) => x.id),
      [trades[2]!.id, trades[0]!.id],
    );
    const paged = await get(`/api/trades?limit=1&page=2`);
    assert.equal(paged.body.total, 4);
    assert.equal(paged.body.page, 2);
    assert.equal(paged.body.limit, 1);
    assert.deepEqual(
      paged.body.data.map((x: { id: number }) => x.id),
      [trades[2]!.id],
    );
    const none = await get(`/api/trades?market=999999`);
    assert.equal(none.status, 404);
    assert.deepEqual(none.body, { success: false, error: 'Market not found' });
  });

  it('refuses malformed parameters with 400 naming them', async () => {
    const cases: [string, string][] = [
      ['/api/events?status=pending', 'Invalid status: must be one of active, resolved'],
      ['/api/events?limit=0', 'Invalid limit: must be between 1 and 100'],
      ['/api/events?limit=101', 'Invalid limit: must be between 1 and 100'],
      ['/api/events?page=0', 'Invalid page: must be between 1 and 1000000'],
      ['/api/events?page=x', 'Invalid page: must be between 1 and 1000000'],
      ['/api/trades?market=abc', 'Invalid market: must be a positive integer'],
      ['/api/trades?market=0', 'Invalid market: must be a positive integer'],
      ['/api/trades?limit=101', 'Invalid limit: must be between 1 and 100'],
      ['/api/trades?limit=0', 'Invalid limit: must be between 1 and 100'],
      ['/api/trades?page=0', 'Invalid page: must be between 1 and 1000000'],
      ['/api/events/a%00b', 'Invalid slugOrId: must not contain NUL characters'],
      ['/api/markets?q=a%00b', 'Invalid q: must not contain NUL characters'],
      ['/api/markets?category=%00', 'Invalid category: must not contain NUL characters'],
      ['/api/search?q=ab%00', 'Invalid q: must not contain NUL characters'],
    ];
    for (const [url, error] of cases) {
      const r = await get(url);
      assert.equal(r.status, 400, url);
      assert.deepEqual(r.body, { success: false, error }, url);
    }
    // Past the router's path parameter limit (100 characters), and a broken percent-encoding.
    const long = await get(`/api/events/${'x'.repeat(101)}`);
    assert.equal(long.status, 414);
    assert.deepEqual(long.body, { success: false, error: 'Path parameter too long' });
    const bad = await get('/api/events/%E0%A4%A');
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body, { success: false, error: 'Malformed URL' });
  });
});
