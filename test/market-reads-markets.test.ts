import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { marketRead } from './helpers/market-http.ts';
import { type MarketFixtures, marketFixtures, randomWallet } from './helpers/market-fixtures.ts';

const NOW = Date.parse('2026-06-01T12:00:00.000Z');
const H = 3_600_000;
const D = 24 * H;
const ago = (ms: number) => new Date(NOW - ms);

describe('market reads: markets, prices, history', () => {
  let t: TestApp;
  let fx: MarketFixtures;
  // Scenario: a yes/no market seeded 50/50 (100 USDC) created 40 days ago, four trades.
  let m1: number;
  let m3: number; // threeway
  let mOld: number; // resolved, high total volume, no recent trades
  let mPending: number;
  let eventId: number;
  const A = randomWallet();
  const B = randomWallet();

  const get = (url: string) => marketRead(t, url);

  before(async () => {
    t = await startTestApp({ clock: { now: () => NOW } });
    fx = marketFixtures(t.deps.db);
    const ev = await fx.event({ title: 'US Election 2028', slug: 'us-election-2028', category: 'politics', created_at: ago(50 * D) });
    eventId = ev.id;
    m1 = await fx.market({
      title: 'Will Bitcoin reach 100k?',
      description: 'Resolves yes if BTC trades at or above 100,000 USD.',
      category: 'crypto',
      created_at: ago(40 * D),
      end_date: new Date(NOW + 5 * D),
      event_id: eventId,
    });
    await fx.trade(m1, A, 'yes', 10, ago(10 * D));
    await fx.trade(m1, B, 'no', 30, ago(2 * D));
    await fx.trade(m1, A, 'yes', 20, ago(3 * H));
    await fx.trade(m1, B, 'no', 5, ago(30 * 60_000));

    m3 = await fx.market({
      title: 'Arsenal vs Chelsea',
      category: 'sports',
      market_type: 'threeway',
      created_at: ago(20 * D),
      end_date: new Date(NOW + 2 * D),
      labels: { yes: 'Arsenal', no: 'Chelsea', draw: 'Draw' },
      featured_at: ago(1 * D),
    });
    await fx.trade(m3, A, 'draw', 3, ago(12 * H));

    mOld = await fx.market({ title: 'Old election market', category: 'politics', created_at: ago(100 * D), end_date: ago(60 * D) });
    await fx.trade(mOld, A, 'yes', 500, ago(90 * D));
    await fx.resolve(mOld, 'yes', ago(59 * D));

    mPending = await fx.market({ title: 'Pending market', category: 'crypto', status: 'pending', created_at: ago(1 * D), end_date: new Date(NOW + 30 * D) });
  });

  after(async () => {
    await t.close();
  });

  it('GET /api/markets lists Market items with every documented field and pagination', async () => {
    const { status, body } = await get('/api/markets');
    assert.equal(status, 200);
    assert.equal(body.success, true);
    assert.equal(body.total, 4);
    assert.equal(body.page, 1);
    assert.equal(body.limit, 20);
    // Default sort: newest first.
    assert.deepEqual(
      body.data.map((m: { id: number }) => m.id),
      [mPending, m3, m1, mOld],
    );
    const item = body.data.find((m: { id: number }) => m.id === m1);
    assert.deepEqual(Object.keys(item).sort(), [
      'category', 'created_at', 'description', 'end_date', 'id', 'image_url', 'liquidity', 'market_type', 'no_price',
      'price_change_1d', 'slug', 'spread', 'status', 'title', 'volume', 'volume_24h', 'yes_price',
    ]);
    // Pools yes 30, no 35 on seeds 50/50: yes = 80/165.
    assert.equal(item.yes_price, 80 / 165);
    assert.equal(item.no_price, 85 / 165);
    assert.equal(item.volume, 65);
    assert.equal(item.volume_24h, 25);
    assert.equal(item.liquidity, 65);
    assert.equal(item.spread, 1 / 166);
    // A day ago the last trade was the 30 USDC on no: yes = 60/140.
    assert.equal(item.price_change_1d, 80 / 165 - 60 / 140);
    assert.equal(item.created_at, ago(40 * D).toISOString());
    assert.equal(item.market_type, 'yesno');
    assert.equal(item.status, 'active');
    const three = body.data.find((m: { id: number }) => m.id === m3);
    // Threeway seeds: 100 USDC split 33.333334 / 33.333333 / 33.333333; then 3 USDC on draw.
    assert.equal(three.draw_price, 36_333_333 / 103_000_000);
    assert.equal(three.yes_price, 33_333_334 / 103_000_000);
    assert.ok(Math.abs(three.yes_price + three.no_price + three.draw_price - 1) < 1e-12);

    const p2 = await get('/api/markets?limit=2&page=2');
    assert.equal(p2.body.total, 4);
    assert.equal(p2.body.page, 2);
    assert.equal(p2.body.limit, 2);
    assert.deepEqual(
      p2.body.data.map((m: { id: number }) => m.id),
      [m1, mOld],
    );
    const beyond = await get('/api/markets?page=9');
    assert.deepEqual(beyond.body.data, []);
    assert.equal(beyond.body.total, 4);
  });

  it('filters by status, category, market_type and q, with total counting the filter', async () => {
    const ids = async (qs: string) => {
      const r = await get(`/api/markets?${qs}`);
      assert.equal(r.status, 200, qs);
      return { ids: r.body.data.map((m: { id: number }) => m.id).sort(), total: r.body.total };
    };
    assert.deepEqual(await ids('status=active'), { ids: [m1, m3].sort(), total: 2 });
    assert.deepEqual(await ids('status=resolved'), { ids: [mOld], total: 1 });
    assert.deepEqual(await ids('status=pending'), { ids: [mPending], total: 1 });
    assert.deepEqual(await ids('status=cancelled'), { ids: [], total: 0 });
    assert.deepEqual(await ids('category=crypto'), { ids: [m1, mPending].sort(), total: 2 });
    assert.deepEqual(await ids('market_type=threeway'), { ids: [m3], total: 1 });
    assert.deepEqual(await ids('category=crypto&status=active'), { ids: [m1], total: 1 });
    // q: case-insensitive substrings of title, description, category or event title.
    assert.deepEqual(await ids('q=BITCOIN'), { ids: [m1], total: 1 });
    assert.deepEqual(await ids('q=100%2C000'), { ids: [m1], total: 1 });
    assert.deepEqual(await ids('q=election'), { ids: [m1, mOld].sort(), total: 2 }, 'm1 through its event title');
    assert.deepEqual(await ids('q=sport'), { ids: [m3], total: 1 });
    assert.deepEqual(await ids('q=old%20election'), { ids: [mOld], total: 1 });
    assert.deepEqual(await ids('q=50%25'), { ids: [], total: 0 }, '% is taken literally');
  });

  it('sorts by volume, ending_soon and trending', async () => {
    const order = async (sort: string) => (await get(`/api/markets?sort=${sort}`)).body.data.map((m: { id: number }) => m.id);
    assert.deepEqual(await order('volume'), [mOld, m1, m3, mPending]);
    // Running markets by nearest end (m3 in 2 days, m1 in 5, pending in 30), then ended ones.
    assert.deepEqual(await order('ending_soon'), [m3, m1, mPending, mOld]);
    // Trending: volume of the last 24 hours (m1 25, m3 3), then total volume.
    assert.deepEqual(await order('trending'), [m1, m3, mOld, mPending]);
    assert.deepEqual(await order('newest'), [mPending, m3, m1, mOld]);
  });

  it('GET /api/markets/:id shows the market, its outcomes with pools, seeds, labels, prices, and its event', async () => {
    const { status, body } = await get(`/api/markets/${m1}`);
    assert.equal(status, 200);
    const d = body.data;
    assert.equal(d.id, m1);
    assert.equal(d.yes_price, 80 / 165);
    assert.equal(d.best_bid, 80 / 166);
    assert.equal(d.best_ask, 81 / 166);
    assert.deepEqual(d.outcomes, [
      { outcome: 'yes', label: 'Yes', price: 80 / 165, pool: 30, seed: 50, shares: d.outcomes[0].shares },
      { outcome: 'no', label: 'No', price: 85 / 165, pool: 35, seed: 50, shares: d.outcomes[1].shares },
    ]);
    assert.ok(d.outcomes[0].shares >= 30, 'shares are at least the stakes');
    assert.equal(d.event.id, eventId);
    assert.equal(d.event.slug, 'us-election-2028');
    assert.equal(d.event.markets_count, 1);
    assert.equal(d.event.total_volume, 65);
    assert.equal(d.trade_count, 4);
    assert.equal(d.last_trade_at, ago(30 * 60_000).toISOString());
    assert.equal(d.featured, false);
    assert.equal(d.resolved_outcome, null);

    const three = (await get(`/api/markets/${m3}`)).body.data;
    assert.deepEqual(
      three.outcomes.map((o: { outcome: string; label: string }) => [o.outcome, o.label]),
      [
        ['yes', 'Arsenal'],
        ['no', 'Chelsea'],
        ['draw', 'Draw'],
      ],
    );
    assert.equal(three.event, null);

    const old = (await get(`/api/markets/${mOld}`)).body.data;
    assert.equal(old.status, 'resolved');
    assert.equal(old.resolved_outcome, 'yes');
    assert.equal(old.resolved_at, ago(59 * D).toISOString());
  });

  it('GET /api/markets/:id/price gives the Price record with changes from trade history', async () => {
    const { status, body } = await get(`/api/markets/${m1}/price`);
    assert.equal(status, 200);
    assert.deepEqual(body.data, {
      market_id: m1,
      yes_price: 80 / 165,
      no_price: 85 / 165,
      market_type: 'yesno',
      volume: 65,
      volume_24h: 25,
      liquidity: 65,
      spread: 1 / 166,
      best_bid: 80 / 166,
      best_ask: 81 / 166,
      change: {
        '1h': 80 / 165 - 80 / 160, // an hour ago: after the 20 USDC on yes
        '1d': 80 / 165 - 60 / 140, // a day ago: after the 30 USDC on no
        '1w': 80 / 165 - 60 / 110, // a week ago: after the first 10 USDC on yes
        '1m': 80 / 165 - 0.5, // 30 days ago: no trade yet, the opening price
      },
      status: 'active',
      last_updated: ago(30 * 60_000).toISOString(),
    });
    const three = (await get(`/api/markets/${m3}/price`)).body.data;
    assert.equal(typeof three.draw_price, 'number');
    assert.ok(Math.abs(three.yes_price + three.no_price + three.draw_price - 1) < 1e-12);
    const pending = (await get(`/api/markets/${mPending}/price`)).body.data;
    assert.deepEqual(pending.change, { '1h': 0, '1d': 0, '1w': 0, '1m': 0 });
    assert.equal(pending.volume, 0);
    assert.equal(pending.last_updated, ago(1 * D).toISOString());
    assert.equal('draw_price' in pending, false);
  });

  it('GET /api/markets/prices?ids= gives batch records keyed by id, leaving unknown ids out', async () => {
    const { status, body } = await get(`/api/markets/prices?ids=${m1},${m3},999999,${m1}`);
    assert.equal(status, 200);
    assert.deepEqual(Object.keys(body.data).sort(), [String(m1), String(m3)].sort());
    const r = body.data[String(m1)];
    assert.equal(r.market_id, m1);
    assert.equal(r.price_change_1h, 80 / 165 - 80 / 160);
    assert.equal(r.price_change_1d, 80 / 165 - 60 / 140);
    assert.equal(r.price_change_1w, 80 / 165 - 60 / 110);
    assert.equal('best_bid' in r, false);
    assert.equal('best_ask' in r, false);
    assert.equal('change' in r, false);
    assert.equal(r.spread, 1 / 166);
    assert.equal(r.volume_24h, 25);
    const fifty = Array.from({ length: 50 }, (_, i) => i + 1).join(',');
    assert.equal((await get(`/api/markets/prices?ids=${fifty}`)).status, 200);
  });

  it('GET /api/markets/trending, /featured and /categories', async () => {
    const trending = await get('/api/markets/trending');
    assert.equal(trending.status, 200);
    assert.deepEqual(
      trending.body.data.map((m: { id: number }) => m.id),
      [m1, m3],
      'active markets by 24h volume',
    );
    assert.equal(trending.body.data[0].volume_24h, 25);

    const featured = await get('/api/markets/featured');
    assert.equal(featured.status, 200);
    assert.equal(featured.body.data.id, m3);
    assert.equal(featured.body.data.featured, true);
    assert.equal(featured.body.data.outcomes.length, 3);

    const cats = await get('/api/markets/categories');
    assert.deepEqual(cats.body.data, [
      { category: 'crypto', count: 2, active_count: 1 },
      { category: 'politics', count: 1, active_count: 0 },
      { category: 'sports', count: 1, active_count: 1 },
    ]);
  });

  it('GET /api/markets/:id/history samples prices like Polymarket prices-history', async () => {
    const { status, body } = await get(`/api/markets/${m1}/history?interval=1w&fidelity=1440`);
    assert.equal(status, 200);
    const d = body.data;
    assert.equal(d.market_id, m1);
    assert.equal(d.interval, '1w');
    assert.equal(d.fidelity, 1440);
    assert.equal(d.outcome, 'yes');
    // Start (a week ago), every day boundary, and now: 9 points; NOW is noon, so the day
    // boundaries are midnights.
    assert.equal(d.history.length, 9);
    assert.equal(d.history[0].t, (NOW - 7 * D) / 1000);
    assert.equal(d.history[0].p, 60 / 110);
    assert.equal(d.history.at(-1).t, NOW / 1000);
    assert.equal(d.history.at(-1).p, 80 / 165);
    assert.deepEqual(d.history.at(-1).prices, { yes: 80 / 165, no: 85 / 165 });
    // The midnight before the 30 USDC on no (2 days ago at noon) still shows 60/110; after it, 60/140.
    const at = (ms: number) => d.history.find((p: { t: number }) => p.t === ms / 1000);
    assert.equal(at(NOW - 2 * D - 12 * H).p, 60 / 110);
    assert.equal(at(NOW - 1 * D - 12 * H).p, 60 / 140);
    assert.equal(at(NOW - 12 * H).p, 60 / 140);
    for (const p of d.history) assert.ok(Math.abs(p.prices.yes + p.prices.no - 1) < 1e-12);

    const no = (await get(`/api/markets/${m1}/history?interval=1h&outcome=no`)).body.data;
    assert.equal(no.fidelity, 1);
    assert.equal(no.history.length, 61);
    assert.equal(no.history[0].p, 80 / 160, 'an hour ago, after the 20 on yes: no = 80/160');
    assert.equal(no.history.at(-1).p, 85 / 165);

    const all = (await get(`/api/markets/${m1}/history?interval=all`)).body.data;
    assert.equal(all.history[0].t, (NOW - 40 * D) / 1000);
    assert.equal(all.history[0].p, 0.5);

    const three = (await get(`/api/markets/${m3}/history?interval=1d&outcome=draw`)).body.data;
    assert.equal(typeof three.history[0].prices.draw, 'number');
    assert.equal(three.history.at(-1).p, three.history.at(-1).prices.draw);

    const dflt = (await get(`/api/markets/${m1}/history`)).body.data;
    assert.equal(dflt.interval, '1d');
    assert.equal(dflt.fidelity, 5);
  });

  it('refuses malformed parameters with 400 naming them', async () => {
    const cases: [string, string][] = [
      ['/api/markets?limit=0', 'Invalid limit: must be between 1 and 100'],
      ['/api/markets?limit=101', 'Invalid limit: must be between 1 and 100'],
      ['/api/markets?limit=abc', 'Invalid limit: must be between 1 and 100'],
      ['/api/markets?limit=1.5', 'Invalid limit: must be between 1 and 100'],
      ['/api/markets?page=0', 'Invalid page: must be between 1 and 1000000'],
      ['/api/markets?page=-1', 'Invalid page: must be between 1 and 1000000'],
      ['/api/markets?status=open', 'Invalid status: must be one of active, resolved, cancelled, pending'],
      ['/api/markets?market_type=binary', 'Invalid market_type: must be one of yesno, threeway, updown, custom'],
      ['/api/markets?sort=hot', 'Invalid sort: must be one of newest, volume, ending_soon, trending'],
      [`/api/markets?q=${'x'.repeat(201)}`, 'Invalid q: must be at most 200 characters'],
      ['/api/markets/abc', 'Invalid id: must be a positive integer'],
      ['/api/markets/0', 'Invalid id: must be a positive integer'],
      ['/api/markets/1.5', 'Invalid id: must be a positive integer'],
      ['/api/markets/99999999999', 'Invalid id: must be a positive integer'],
      ['/api/markets/abc/price', 'Invalid id: must be a positive integer'],
      ['/api/markets/-3/history', 'Invalid id: must be a positive integer'],
      ['/api/markets/prices', 'Missing required parameter: ids'],
      ['/api/markets/prices?ids=', 'Invalid ids: must be a comma-separated list of at most 50 market ids (positive integers)'],
      ['/api/markets/prices?ids=1,a', 'Invalid ids: must be a comma-separated list of at most 50 market ids (positive integers)'],
      ['/api/markets/prices?ids=1,2.5', 'Invalid ids: must be a comma-separated list of at most 50 market ids (positive integers)'],
      ['/api/markets/prices?ids=1,,2', 'Invalid ids: must be a comma-separated list of at most 50 market ids (positive integers)'],
      ['/api/markets/prices?ids=0', 'Invalid ids: must be a comma-separated list of at most 50 market ids (positive integers)'],
      ['/api/markets/prices?ids=99999999999', 'Invalid ids: must be a comma-separated list of at most 50 market ids (positive integers)'],
      [`/api/markets/prices?ids=${Array.from({ length: 51 }, (_, i) => i + 1).join(',')}`, 'Invalid ids: at most 50 ids'],
      [`/api/markets/${m1}/history?interval=2d`, 'Invalid interval: must be one of 1h, 1d, 1w, 1m, all'],
      [`/api/markets/${m1}/history?fidelity=0`, 'Invalid fidelity: must be between 1 and 525600'],
      [`/api/markets/${m1}/history?fidelity=x`, 'Invalid fidelity: must be between 1 and 525600'],
      [`/api/markets/${m1}/history?outcome=maybe`, 'Invalid outcome: must be one of yes, no, draw'],
      [`/api/markets/${m1}/history?outcome=draw`, 'Invalid outcome: must be one of yes, no'],
    ];
    for (const [url, error] of cases) {
      const r = await get(url);
      assert.equal(r.status, 400, url);
      assert.deepEqual(r.body, { success: false, error }, url);
    }
    const fine = await get(`/api/markets/${m1}/history?interval=all&fidelity=1`);
    assert.equal(fine.status, 400, 'too many points');
    assert.match(fine.body.error ?? '', /fidelity/);
  });

  it('answers 404 Market not found for unknown ids', async () => {
    for (const url of ['/api/markets/999999', '/api/markets/999999/price', '/api/markets/999999/history']) {
      const r = await get(url);
      assert.equal(r.status, 404, url);
      assert.deepEqual(r.body, { success: false, error: 'Market not found' }, url);
    }
  });
});
