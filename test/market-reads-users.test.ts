import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { updateProfile } from '../src/market/users/profile.update.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { marketRead } from './helpers/market-http.ts';
import { type MarketFixtures, type TradeResult, marketFixtures, randomWallet } from './helpers/market-fixtures.ts';

const NOW = Date.parse('2026-06-01T12:00:00.000Z');
const H = 3_600_000;
const D = 24 * H;
const ago = (ms: number) => new Date(NOW - ms);
const usdc = (units: bigint | number) => Number(units) / 1e6;

describe('market reads: portfolio, users, search', () => {
  let t: TestApp;
  let fx: MarketFixtures;
  const A = randomWallet();
  const B = randomWallet();
  const C = randomWallet();
  const D_ = randomWallet();
  const E = randomWallet();
  let mR: number; // resolved yes
  let mX: number; // cancelled
  let mO: number; // open
  let mN: number; // resolved with nobody on the winner: refunds
  let eventId: number;
  let payouts: Map<string, bigint>;
  let aYes: TradeResult;
  let aNo: TradeResult;
  let bNo: TradeResult;
  /** Expected total pnl of each trader, units. */
  const pnl = new Map<string, bigint>();

  const get = (url: string) => marketRead(t, url);

  before(async () => {
    t = await startTestApp({ clock: { now: () => NOW } });
    fx = marketFixtures(t.deps.db);
    await fx.wallet(A, { created_at: ago(40 * D) });
    await fx.wallet(E, { username: 'Eve_1', avatar_url: 'https://cdn.example.com/eve.png', created_at: ago(3 * D) });
    eventId = (await fx.event({ title: 'General Election', slug: 'general-election', created_at: ago(30 * D) })).id;
    await fx.event({ title: 'Bitcoin halving', slug: 'halving', category: 'crypto', created_at: ago(20 * D) });

    mR = await fx.market({ title: 'Ethereum above 5k', description: 'Price of ETH on Coinbase', category: 'crypto', created_at: ago(30 * D) });
    await fx.trade(mR, A, 'yes', 10, ago(20 * D));
    await fx.trade(mR, B, 'no', 30, ago(19 * D));
    await fx.trade(mR, C, 'yes', 10, ago(18 * D));
    payouts = await fx.resolve(mR, 'yes', ago(10 * D));

    mX = await fx.market({ title: 'Cancelled thing', category: 'misc', created_at: ago(12 * D) });
    await fx.trade(mX, A, 'yes', 5, ago(9 * D));
    await fx.cancel(mX, ago(8 * D));

    mN = await fx.market({ title: 'Nobody wins', category: 'misc', created_at: ago(6 * D) });
    await fx.trade(mN, D_, 'yes', 7, ago(5 * D));
    await fx.resolve(mN, 'no', ago(4 * D));

    mO = await fx.market({ title: 'Turnout over 60%', category: 'politics', event_id: eventId, created_at: ago(3 * D) });
    aYes = await fx.trade(mO, A, 'yes', 20, ago(2 * D));
    bNo = await fx.trade(mO, B, 'no', 10, ago(1 * D));
    aNo = await fx.trade(mO, A, 'no', 2, ago(12 * H));

    // Open market pools: yes 20, no 12 on seeds 50/50 -> yes 70/132, no 62/132.
    const mark = (shares: bigint, num: number) => BigInt(Math.round(Number(shares) * (num / 132)));
    const paid = (w: string, o: string) => payouts.get(`${w}:${o}`) ?? 0n;
    pnl.set(A, paid(A, 'yes') - 10_000_000n + (mark(aYes.shares, 70) - 20_000_000n) + (mark(aNo.shares, 62) - 2_000_000n));
    pnl.set(B, -30_000_000n + (mark(bNo.shares, 62) - 10_000_000n));
    pnl.set(C, paid(C, 'yes') - 10_000_000n);
    pnl.set(D_, 0n);
  });

  after(async () => {
    await t.close();
  });

  it('settles the scenario as market-math says (fixture sanity)', () => {
    // Losing pool 30, fee 1.5, 28.5 shared by A and C by shares; each gets at least the stake back.
    const a = payouts.get(`${A}:yes`)!;
    const c = payouts.get(`${C}:yes`)!;
    assert.ok(a > 10_000_000n && c > 10_000_000n);
    assert.ok(a + c <= 48_500_000n && a + c > 48_499_990n);
    assert.equal(payouts.get(`${B}:no`), 0n);
  });

  it('GET /api/portfolio/:wallet lists open positions with their marks', async () => {
    const { status, body } = await get(`/api/portfolio/${A.toUpperCase().replace('0X', '0x')}`);
    assert.equal(status, 200);
    const value = (shares: bigint, num: number) => Math.round(Number(shares) * (num / 132));
    assert.deepEqual(body.data, [
      {
        market_id: mO,
        market_title: 'Turnout over 60%',
        side: 'NO',
        shares: usdc(aNo.shares),
        avg_price: 2_000_000 / Number(aNo.shares),
        current_price: 62 / 132,
        current_value: usdc(value(aNo.shares, 62)),
        cost_basis: 2,
        pnl: usdc(value(aNo.shares, 62) - 2_000_000),
        pnl_percent: ((value(aNo.shares, 62) - 2_000_000) / 2_000_000) * 100,
        status: 'active',
      },
      {
        market_id: mO,
        market_title: 'Turnout over 60%',
        side: 'YES',
        shares: usdc(aYes.shares),
        avg_price: 20_000_000 / Number(aYes.shares),
        current_price: 70 / 132,
        current_value: usdc(value(aYes.shares, 70)),
        cost_basis: 20,
        pnl: usdc(value(aYes.shares, 70) - 20_000_000),
        pnl_percent: ((value(aYes.shares, 70) - 20_000_000) / 20_000_000) * 100,
        status: 'active',
      },
    ]);
    assert.deepEqual((await get(`/api/portfolio/${C}`)).body.data, [], 'settled positions are not open');
    assert.deepEqual((await get(`/api/portfolio/${randomWallet()}`)).body.data, [], 'a wallet never seen has none');
  });

  it('GET /api/portfolio/:wallet/stats adds up value, cost, realized and unrealized pnl', async () => {
    const { status, body } = await get(`/api/portfolio/${A}/stats`);
    assert.equal(status, 200);
    const vY = BigInt(Math.round(Number(aYes.shares) * (70 / 132)));
    const vN = BigInt(Math.round(Number(aNo.shares) * (62 / 132)));
    const realized = payouts.get(`${A}:yes`)! - 10_000_000n;
    assert.deepEqual(body.data, {
      wallet: A,
      open_positions: 2,
      open_markets: 1,
      total_value: usdc(vY + vN),
      total_cost: 22,
      unrealized_pnl: usdc(vY + vN - 22_000_000n),
      realized_pnl: usdc(realized),
      total_pnl: usdc(pnl.get(A)!),
      total_volume: 37,
      markets_traded: 3,
      settled_markets: 2,
      won_markets: 1,
      win_rate: 0.5,
    });
    const none = (await get(`/api/portfolio/${randomWallet()}/stats`)).body.data;
    assert.equal(none.total_pnl, 0);
    assert.equal(none.markets_traded, 0);
    assert.equal(none.win_rate, 0);
  });

  it('GET /api/users/:wallet gives the profile with rank, win_rate, pnl and volume', async () => {
    const traders = [A, B, C, D_];
    const rankOf = (w: string) => 1 + traders.filter((o) => pnl.get(o)! > pnl.get(w)!).length;
    const { status, body } = await get(`/api/users/${A}`);
    assert.equal(status, 200);
    assert.deepEqual(body.data, {
      wallet: A,
      username: '',
      avatar_url: '',
      total_volume: 37,
      total_pnl: usdc(pnl.get(A)!),
      markets_traded: 3,
      rank: rankOf(A),
      win_rate: 0.5,
      joined_at: ago(40 * D).toISOString(),
    });
    const c = (await get(`/api/users/${C}`)).body.data;
    assert.equal(c.win_rate, 1);
    assert.equal(c.rank, rankOf(C));
    const d = (await get(`/api/users/${D_}`)).body.data;
    assert.equal(d.win_rate, 0, 'a resolution nobody held the winner of is settled but not won');
    assert.equal(d.total_pnl, 0);
    const e = (await get(`/api/users/${E}`)).body.data;
    assert.equal(e.username, 'Eve_1');
    assert.equal(e.avatar_url, 'https://cdn.example.com/eve.png');
    assert.equal(e.markets_traded, 0);
    assert.equal(e.rank, 1 + traders.filter((o) => pnl.get(o)! > 0n).length);
    const missing = await get(`/api/users/${randomWallet()}`);
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body, { success: false, error: 'User not found' });
  });

  it('GET /api/users/leaderboard ranks traders by pnl or volume, agreeing with profiles', async () => {
    const byPnl = await get('/api/users/leaderboard');
    assert.equal(byPnl.status, 200);
    const expected = [A, B, C, D_].sort((x, y) => (pnl.get(y)! > pnl.get(x)! ? 1 : pnl.get(y)! < pnl.get(x)! ? -1 : x < y ? -1 : 1));
    assert.deepEqual(
      byPnl.body.data.map((e: { wallet: string }) => e.wallet),
      expected,
    );
    for (const entry of byPnl.body.data) {
      const profile = (await get(`/api/users/${entry.wallet}`)).body.data;
      assert.equal(entry.total_pnl, profile.total_pnl, 'SQL and JavaScript marks agree');
      // The profile reads the leaderboard's SQL totals; the stats mark positions in JavaScript.
      const stats = (await get(`/api/portfolio/${entry.wallet}/stats`)).body.data;
      assert.equal(stats.total_pnl, entry.total_pnl, 'SQL and JavaScript marks agree');
      assert.equal(stats.total_volume, entry.total_volume);
      assert.equal(stats.win_rate, entry.win_rate);
      assert.equal(stats.markets_traded, entry.markets_traded);
      assert.equal(entry.rank, profile.rank);
      assert.equal(entry.total_volume, profile.total_volume);
      assert.equal(entry.win_rate, profile.win_rate);
      assert.equal(entry.markets_traded, profile.markets_traded);
    }
    const byVolume = await get('/api/users/leaderboard?sort=volume&limit=2');
    assert.deepEqual(byVolume.body.data, [
      {
        rank: 1,
        wallet: B,
        username: '',
        avatar_url: '',
        total_pnl: usdc(pnl.get(B)!),
        total_volume: 40,
        markets_traded: 2,
        win_rate: 0,
      },
      {
        rank: 2,
        wallet: A,
        username: '',
        avatar_url: '',
        total_pnl: usdc(pnl.get(A)!),
        total_volume: 37,
        markets_traded: 3,
        win_rate: 0.5,
      },
    ]);
  });

  it('GET /api/users/check-username/:username checks the rules and availability', async () => {
    const check = async (name: string) => (await get(`/api/users/check-username/${encodeURIComponent(name)}`)).body.data;
    assert.deepEqual(await check('NewName'), { username: 'NewName', valid: true, available: true, reason: null });
    assert.deepEqual(await check('eve_1'), { username: 'eve_1', valid: true, available: false, reason: 'Username taken' });
    assert.deepEqual(await check('x'), { username: 'x', valid: false, available: false, reason: 'Username must be between 3 and 20 characters' });
    assert.deepEqual(await check('9lives'), { username: '9lives', valid: false, available: false, reason: 'Username must start with a letter' });
    assert.deepEqual(await check('bad name'), {
      username: 'bad name',
      valid: false,
      available: false,
      reason: 'Username may contain only letters, digits and underscores',
    });
    assert.deepEqual(await check('ADMIN'), { username: 'ADMIN', valid: false, available: false, reason: 'Username is reserved' });
  });

  it('updateProfile sets, validates and clears usernames and avatars', async () => {
    const db = t.deps.db;
    const W = randomWallet();
    const set = await updateProfile(db, W.toUpperCase().replace('0X', '0x'), { username: 'Walt', avatar_url: 'https://img.example.com/w.png' });
    assert.deepEqual(set, { wallet: W, username: 'Walt', avatar_url: 'https://img.example.com/w.png' });
    const profile = (await get(`/api/users/${W}`)).body.data;
    assert.equal(profile.username, 'Walt');
    assert.equal((await get('/api/users/check-username/WALT')).body.data.available, false);
    // Keeping the same name in another case is allowed for its owner.
    assert.equal((await updateProfile(db, W, { username: 'WALT' })).username, 'WALT');
    assert.equal((await updateProfile(db, W, { avatar_url: null })).avatar_url, null);
    assert.equal((await updateProfile(db, W, {})).username, 'WALT', 'undefined leaves a field unchanged');
    const status = async (p: Promise<unknown>) => {
      try {
        await p;
        return null;
      } catch (e) {
        return [(e as { status: number }).status, (e as Error).message];
      }
    };
    assert.deepEqual(await status(updateProfile(db, randomWallet(), { username: 'eve_1' })), [409, 'Username taken']);
    assert.deepEqual(await status(updateProfile(db, W, { username: 'ab' })), [400, 'Invalid username: must be between 3 and 20 characters']);
    assert.deepEqual(await status(updateProfile(db, W, { avatar_url: 'http://x.example/a.png' })), [400, 'Invalid avatar_url: must be an https URL']);
    assert.deepEqual(await status(updateProfile(db, '0x123', { username: 'Okay' })), [400, 'Invalid wallet: must be 0x followed by 40 hex digits']);
    assert.equal((await updateProfile(db, W, { username: null })).username, null);
    assert.equal((await get('/api/users/check-username/walt')).body.data.available, true, 'a cleared name is free again');
  });

  it('GET /api/search matches titles, descriptions, categories and event titles, case-insensitively', async () => {
    const search = async (q: string) => {
      const r = await get(`/api/search?q=${encodeURIComponent(q)}`);
      assert.equal(r.status, 200, q);
      return r.body.data;
    };
    const eth = await search('ETH');
    assert.deepEqual(eth.markets, [{ id: mR, title: 'Ethereum above 5k', category: 'crypto', yes_price: 70 / 150, volume: 50, status: 'resolved' }]);
    assert.deepEqual(eth.events, []);
    assert.deepEqual(
      (await search('coinbase')).markets.map((m: { id: number }) => m.id),
      [mR],
    );
    assert.deepEqual(
      (await search('politics')).markets.map((m: { id: number }) => m.id),
      [mO],
    );
    assert.deepEqual(
      (await search('60%')).markets.map((m: { id: number }) => m.id),
      [mO],
    );
    const election = await search('election');
    assert.deepEqual(
      election.markets.map((m: { id: number }) => m.id),
      [mO],
      'through its event title',
    );
    assert.deepEqual(election.events, [{ id: eventId, title: 'General Election', slug: 'general-election', markets_count: 1 }]);
    const halving = await search('HALV');
    assert.deepEqual(halving.markets, []);
    assert.equal(halving.events[0].slug, 'halving');
    assert.equal(halving.events[0].markets_count, 0);
    assert.deepEqual(await search('zzzz'), { markets: [], events: [] });
  });

  it('refuses malformed parameters with 400 naming them', async () => {
    const cases: [string, string][] = [
      ['/api/search?q=a', 'Invalid q: must be between 2 and 200 characters'],
      ['/api/search?q=%20a%20', 'Invalid q: must be between 2 and 200 characters'],
      ['/api/search', 'Missing required parameter: q'],
      ['/api/search?q=ok&limit=0', 'Invalid limit: must be between 1 and 100'],
      ['/api/users/leaderboard?limit=101', 'Invalid limit: must be between 1 and 100'],
      ['/api/users/leaderboard?limit=0', 'Invalid limit: must be between 1 and 100'],
      ['/api/users/leaderboard?sort=wins', 'Invalid sort: must be one of pnl, volume'],
    ];
    for (const bad of ['0x123', 'abc', `0x${'g'.repeat(40)}`, `${'a'.repeat(42)}`, `0x${'a'.repeat(41)}`]) {
      cases.push([`/api/users/${bad}`, 'Invalid wallet: must be 0x followed by 40 hex digits']);
      cases.push([`/api/portfolio/${bad}`, 'Invalid wallet: must be 0x followed by 40 hex digits']);
      cases.push([`/api/portfolio/${bad}/stats`, 'Invalid wallet: must be 0x followed by 40 hex digits']);
    }
    for (const [url, error] of cases) {
      const r = await get(url);
      assert.equal(r.status, 400, url);
      assert.deepEqual(r.body, { success: false, error }, url);
    }
  });

  it('documents every read endpoint in a valid /openapi.json under the market tag', async () => {
    const r = await t.app.inject('/openapi.json');
    const doc = r.json() as { paths: Record<string, Record<string, { tags?: string[]; responses: Record<string, unknown> }>> };
    await SwaggerParser.validate(structuredClone(doc) as never);
    const paths = [
      '/api/markets',
      '/api/markets/{id}',
      '/api/markets/{id}/price',
      '/api/markets/prices',
      '/api/markets/trending',
      '/api/markets/featured',
      '/api/markets/categories',
      '/api/markets/{id}/history',
      '/api/events',
      '/api/events/featured',
      '/api/events/{slugOrId}',
      '/api/trades',
      '/api/portfolio/{wallet}',
      '/api/portfolio/{wallet}/stats',
      '/api/users/{wallet}',
      '/api/users/leaderboard',
      '/api/users/check-username/{username}',
      '/api/search',
    ];
    for (const p of paths) {
      const op = doc.paths[p]?.get;
      assert.ok(op, `${p} documented`);
      assert.deepEqual(op.tags, ['market'], p);
      assert.ok(op.responses['200'] && op.responses['400'], p);
    }
  });
});

describe('market reads: rate limit', () => {
  it('counts read endpoints against the market limit', async () => {
    const t = await startTestApp({ env: { RATE_LIMIT_MARKET_PER_MINUTE: '2' } });
    try {
      assert.equal((await t.app.inject('/api/markets')).statusCode, 200);
      assert.equal((await t.app.inject('/api/search?q=ab')).statusCode, 200);
      const r = await t.app.inject('/api/markets/categories');
      assert.equal(r.statusCode, 429);
      assert.deepEqual(r.json(), { success: false, error: 'Rate limit exceeded' });
    } finally {
      await t.close();
    }
  });
});
