import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { assertBooksBalanced, manualClock, USDC } from './helpers/market.ts';
import { nowSeconds, signedRequest, tradeBody } from './helpers/market-client.ts';
import { failure, marketHttp, outcomeOf } from './helpers/market-http.ts';

/**
 * The market API met as a new user meets it: malformed inputs, odd shapes and the few answers a
 * first client reads (docs/api-decisions.md, "Market API: inputs and shapes").
 */

const clock = manualClock(Date.now());

describe('market API polish: malformed inputs and answer shapes', () => {
  let t: TestApp;
  let m: ReturnType<typeof marketHttp>;

  before(async () => {
    t = await startTestApp({ clock, env: { RATE_LIMIT_MARKET_PER_MINUTE: '1000000' } });
    m = marketHttp(t, clock);
  });
  after(() => t.close());
  afterEach(() => assertBooksBalanced(t.deps.db));

  const BAD_WALLET = failure(400, 'invalid wallet_addr: must be 0x followed by 40 hex digits');
  const MALFORMED_WALLETS: unknown[] = ['0x123', 'not-a-wallet', '', '0x' + 'g'.repeat(40), '0x' + '1'.repeat(41), 7, null, true, ['0x' + '1'.repeat(40)], {}];

  it('answers 400 naming wallet_addr for a malformed wallet_addr, before the wallet match, with either signature', async () => {
    const w = await m.trader('20');
    const market = await m.createMarket();
    for (const bad of MALFORMED_WALLETS) {
      for (const [how, signer] of [['key', w.viaKey], ['wallet', w.viaWallet]] as const) {
        const what = `${how} ${JSON.stringify(bad)}`;
        assert.deepEqual(outcomeOf(await m.trade(signer, { ...tradeBody(w.wallet, market.id, 'yes', 1), wallet_addr: bad })), BAD_WALLET, `trade ${what}`);
        const withdraw = await m.send(signer, { method: 'POST', url: '/api/pool/withdraw', body: { wallet_addr: bad, amount: 1 } });
        assert.deepEqual(outcomeOf(withdraw), BAD_WALLET, `withdraw ${what}`);
        const deposit = await m.send(signer, { method: 'POST', url: '/api/pool/deposit', body: { wallet_addr: bad, tx_hash: '0x' + '1'.repeat(64) } });
        assert.deepEqual(outcomeOf(deposit), BAD_WALLET, `deposit ${what}`);
      }
      const keys = await m.send(w.viaWallet, { method: 'POST', url: '/api/keys', body: { wallet_addr: bad } });
      assert.deepEqual(outcomeOf(keys), BAD_WALLET, `keys ${JSON.stringify(bad)}`);
    }
    // The refusal does not use the signature up: the same signed bytes get the same 400.
    clock.advance(1000);
    const again = await signedRequest(w.viaKey, { method: 'POST', url: '/api/pool/trade', body: { ...tradeBody(w.wallet, market.id, 'yes', 1), wallet_addr: 'x' }, timestamp: nowSeconds(clock.now()) });
    for (let i = 0; i < 2; i++) {
      const r = await t.app.inject(again);
      assert.deepEqual({ status: r.statusCode, body: r.json() }, BAD_WALLET);
    }
    assert.deepEqual(await m.moneyOf(w.wallet), { balance: 20n * USDC, trades: 0 });
  });

  it('keeps 403 for a well-formed wallet_addr of another wallet, in any case, and 401 before any body check', async () => {
    const w = await m.trader('20');
    const market = await m.createMarket();
    const other = privateKeyToAccount(generatePrivateKey()).address;
    for (const wallet of [other, other.toLowerCase(), '0x' + other.slice(2).toUpperCase()]) {
      const body = tradeBody(wallet, market.id, 'yes', 1);
      assert.deepEqual(outcomeOf(await m.trade(w.viaKey, body)), failure(403, 'API key wallet mismatch'), wallet);
      assert.deepEqual(outcomeOf(await m.trade(w.viaWallet, body)), failure(403, 'Wallet mismatch'), wallet);
    }
    // Its own wallet in another case is the same wallet.
    const upper = '0x' + w.wallet.slice(2).toUpperCase();
    assert.equal((await m.trade(w.viaKey, tradeBody(upper, market.id, 'yes', 1))).status, 200);
    // No credentials: 401 whatever the body says.
    assert.deepEqual(outcomeOf(await m.trade(null, { ...tradeBody(w.wallet, market.id, 'yes', 1), wallet_addr: 'nope' })), failure(401, 'Signature required'));
    // A bad signature stays 401 too: the body is read only once the signer is known.
    const forged = await m.trade(w.viaKey, { ...tradeBody(w.wallet, market.id, 'yes', 1), wallet_addr: 'nope' }, { signedBody: '{}' });
    assert.deepEqual(outcomeOf(forged), failure(401, 'Invalid signature'));
    assert.deepEqual(await m.moneyOf(w.wallet), { balance: 19n * USDC, trades: 1 });
  });

  it('shows an event with neither an end date nor markets with end_date "" (a string, like unset username and avatar_url)', async () => {
    const created = await m.adminCall('POST', '/admin/events', { title: `Open ${Math.random()}`, category: 'polish' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.id as number;
    const detail = (await t.app.inject(`/api/events/${id}`)).json();
    assert.equal(detail.data.end_date, '');
    assert.equal(detail.data.markets_count, 0);
    const listed = (await t.app.inject('/api/events?limit=100')).json().data.find((e: { id: number }) => e.id === id);
    assert.equal(listed.end_date, '');
    assert.equal((await m.adminCall('POST', `/admin/events/${id}/feature`)).status, 200);
    assert.equal((await t.app.inject('/api/events/featured')).json().data.end_date, '');
    // The document says so too: a string, never null.
    const doc = (await t.app.inject('/openapi.json')).json();
    const item = doc.paths['/api/events'].get.responses['200'].content['application/json'].schema.properties.data.items;
    assert.equal(item.properties.end_date.type, 'string');
    // With a market it shows the market's end.
    const market = await m.createMarket({ event_id: id });
    const withMarket = (await t.app.inject(`/api/events/${id}`)).json().data;
    assert.equal(withMarket.end_date, (await t.app.inject(`/api/markets/${market.id}`)).json().data.end_date);
    assert.notEqual(withMarket.end_date, '');
  });

  it('refuses every wrong opening_prices with a 400 naming what is wrong, and creates no market', async () => {
    const countMarkets = async () => Number((await t.deps.db.selectFrom('markets').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
    const before = await countMarkets();
    const end = new Date(clock.now() + 30 * 86_400_000).toISOString();
    const create = (market_type: string, opening_prices: unknown, extra: Record<string, unknown> = {}) =>
      m.adminCall('POST', '/admin/markets', { title: `Prices ${Math.random()}`, category: 'polish', market_type, end_date: end, opening_prices, ...extra });
    const two = 'opening_prices must be an object keyed by outcome (yes, no)';
    const three = 'opening_prices must be an object keyed by outcome (yes, no, draw)';
    const between = (o: string) => `opening_prices.${o} must be a number between 0 and 1, both excluded`;
    const cases: [string, unknown, string, Record<string, unknown>?][] = [
      // Not an object keyed by outcome.
      ['yesno', [0.5, 0.5], two],
      ['threeway', [0.4, 0.3, 0.3], three],
      ['yesno', '0.5', two],
      ['yesno', 0.5, two],
      ['yesno', null, two],
      ['yesno', true, two],
      // Prices that are not numbers in (0, 1).
      ['yesno', { yes: '0.6', no: '0.4' }, between('yes')],
      ['yesno', { yes: 0.6, no: null }, between('no')],
      ['yesno', { yes: true, no: 0.5 }, between('yes')],
      ['yesno', { yes: 0, no: 1 }, between('yes')],
      ['yesno', { yes: 1, no: 0 }, between('yes')],
      ['yesno', { yes: 1.2, no: -0.2 }, between('yes')],
      ['yesno', { yes: 0.5, no: -0.5 }, between('no')],
      ['threeway', { yes: 0.5, no: 0.5, draw: 0 }, between('draw')],
      // Not summing to 1 (within 1e-6), shown without float noise.
      ['yesno', { yes: 0.3, no: 0.3 }, 'opening_prices must sum to 1 (within 0.000001), got 0.6'],
      ['yesno', { yes: 0.1, no: 0.2 }, 'opening_prices must sum to 1 (within 0.000001), got 0.3'],
      ['threeway', { yes: 0.4, no: 0.3, draw: 0.4 }, 'opening_prices must sum to 1 (within 0.000001), got 1.1'],
      ['yesno', { yes: 0.5, no: 0.500002 }, 'opening_prices must sum to 1 (within 0.000001), got 1.000002'],
      // Missing or extra outcomes for the market type.
      ['yesno', {}, 'opening_prices.yes is required'],
      ['yesno', { yes: 1 - 1e-9 }, 'opening_prices.no is required'],
      ['threeway', { yes: 0.5, no: 0.5 }, 'opening_prices.draw is required'],
      ['yesno', { yes: 0.5, no: 0.4, draw: 0.1 }, 'opening_prices.draw is not an outcome of a yesno market (yes, no)'],
      ['updown', { yes: 0.5, no: 0.4, draw: 0.1 }, 'opening_prices.draw is not an outcome of an updown market (yes, no)'],
      ['custom', { yes: 0.5, no: 0.5, maybe: 0 }, 'opening_prices.maybe is not an outcome of a custom market (yes, no)', { outcome_labels: { yes: 'A', no: 'B' } }],
      ['threeway', { yes: 0.4, no: 0.3, draw: 0.3, other: 0 }, 'opening_prices.other is not an outcome of a threeway market (yes, no, draw)'],
      ['yesno', { YES: 0.5, NO: 0.5 }, 'opening_prices.YES is not an outcome of a yesno market (yes, no)'],
      // Seeds too small to open at the prices asked: refused, not opened at other prices.
      ['threeway', { yes: 0.98, no: 0.01, draw: 0.01 }, 'seed_liquidity 0.000003 USDC is too small to open at these prices: yes would open at 0.33333333 instead of 0.98 (each within 0.000001)', { seed_liquidity: '0.000003' }],
      ['yesno', { yes: 0.15, no: 0.85 }, 'seed_liquidity 0.000007 USDC is too small to open at these prices: yes would open at 0.14285714 instead of 0.15 (each within 0.000001)', { seed_liquidity: '0.000007' }],
      ['threeway', undefined, 'seed_liquidity 0.000005 USDC is too small to open at even prices: yes would open at 0.4 instead of 0.33333333 (each within 0.000001)', { seed_liquidity: '0.000005' }],
    ];
    for (const [type, prices, error, extra] of cases) {
      const r = await create(type, prices, extra);
      assert.deepEqual({ status: r.status, body: r.body }, { status: 400, body: { error } }, `${type} ${JSON.stringify(prices)} ${JSON.stringify(extra ?? {})}`);
    }
    assert.equal(await countMarkets(), before);

    // What is right opens at exactly the prices asked.
    const ok = await create('threeway', { yes: 0.5, no: 0.3, draw: 0.2 });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.deepEqual(ok.body.prices, { yes: 0.5, no: 0.3, draw: 0.2 });
    const tiny = await create('yesno', { yes: 0.999999, no: 0.000001 });
    assert.equal(tiny.status, 201, JSON.stringify(tiny.body));
    assert.deepEqual(tiny.body.seeds, { yes: 99.9999, no: 0.0001 });
  });

  it('answers GET /api/time in the envelope: data.time the Unix seconds, data.iso the same instant, never cached', async () => {
    clock.advance(1234);
    const now = clock.now();
    const r = await t.app.inject('/api/time');
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json(), { success: true, data: { time: Math.floor(now / 1000), iso: new Date(now).toISOString() } });
    assert.equal(r.headers['cache-control'], 'no-store');
    assert.ok(r.headers['x-ratelimit-limit-requests']);
    // The document promises both fields (a generated client types them required).
    const doc = (await t.app.inject('/openapi.json')).json();
    const schema = doc.paths['/api/time'].get.responses['200'].content['application/json'].schema;
    assert.deepEqual([...schema.required].sort(), ['data', 'success']);
    assert.deepEqual([...schema.properties.data.required].sort(), ['iso', 'time']);
    assert.equal(schema.properties.data.properties.time.type, 'integer');
  });

  it("indexes the ledger's trade movements by trade id, and the audit's trade join can use it", async () => {
    const index = await sql<{ indexdef: string }>`select indexdef from pg_indexes where tablename = 'ledger_entries' and indexname = 'ledger_trade'`.execute(t.deps.db);
    assert.equal(index.rows.length, 1, 'migration 2026_11_27_10_ledger_trade_index creates ledger_trade');
    assert.match(index.rows[0]!.indexdef, /ON public\.ledger_entries USING btree \(trade_id\) WHERE \(type = 'trade'::text\)$/);
    // The join of src/market/audit/audit-records.ts (its predicate is what the partial index must
    // imply). Sequential scans off, since these test tables are small enough to read whole; on a
    // large ledger PostgreSQL picks the index itself (docs/api-decisions.md).
    const plan = await t.deps.db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      const r = await sql<{ 'QUERY PLAN': unknown }>`explain (format json)
        select t.id, count(l.id) from trades t left join ledger_entries l on l.trade_id = t.id and l.type = 'trade'
        group by t.id order by t.id limit 50`.execute(trx);
      return JSON.stringify(r.rows[0]!['QUERY PLAN']);
    });
    assert.match(plan, /"Index Name":"ledger_trade"/, plan);
  });

  const get = async (url: string) => {
    const r = await t.app.inject(url);
    return { status: r.statusCode, body: r.json() };
  };

  it('takes integer parameters as plain decimal digits only: 0x1, 1e0, 1.0, +1 and " 1" are 400, not another spelling of 1', async () => {
    const market = await m.createMarket();
    const w = await m.trader('1');
    const id = market.id;
    const badId = failure(400, 'Invalid id: must be a positive integer');
    for (const spelled of [`0x${id.toString(16)}`, `${id}e0`, `${id}.0`, `+${id}`, `%20${id}`, `${id}%20`, `0b1`, 'Infinity']) {
      assert.deepEqual(await get(`/api/markets/${spelled}`), badId, spelled);
      assert.deepEqual(await get(`/api/markets/${spelled}/price`), badId, `${spelled}/price`);
      assert.deepEqual(await get(`/api/markets/${spelled}/history`), badId, `${spelled}/history`);
      assert.deepEqual(await get(`/api/trades?market=${spelled}`), failure(400, 'Invalid market: must be a positive integer'), `trades ${spelled}`);
    }
    const badLimit = failure(400, 'Invalid limit: must be between 1 and 100');
    const badPage = failure(400, 'Invalid page: must be between 1 and 1000000');
    for (const url of ['/api/markets?limit=1e1', '/api/markets?limit=10.0', '/api/events?limit=0xa', '/api/trades?limit=%2B5', '/api/users/leaderboard?limit=1e1', '/api/search?q=ab&limit=1e1', `/api/pool/ledger/${w.wallet}?limit=1e1`, `/api/pool/withdrawals/${w.wallet}?limit=1e1`]) {
      assert.deepEqual(await get(url), badLimit, url);
    }
    for (const url of ['/api/markets?page=1e0', '/api/events?page=1.0', '/api/trades?page=0x1']) assert.deepEqual(await get(url), badPage, url);
    assert.deepEqual(await get(`/api/markets/${id}/history?fidelity=5.0`), failure(400, 'Invalid fidelity: must be between 1 and 525600'));
    // Decimal digits, leading zeros included, still read as the number.
    assert.equal((await get(`/api/markets/0${id}`)).body.data.id, id);
    assert.equal((await get(`/api/markets?limit=05`)).body.limit, 5);
    assert.equal((await get(`/api/trades?market=${id}&page=1&limit=100`)).status, 200);
    // Out of range stays the same 400 (ids past the integer column, pages past the cap).
    assert.deepEqual(await get('/api/markets/2147483648'), badId);
    assert.deepEqual(await get('/api/markets/99999999999999999999999'), badId);
    assert.deepEqual(await get('/api/markets?page=1000001'), badPage);
  });

  it('words a malformed path parameter of a signed route like every market route: PUT /api/users/:wallet, DELETE /api/keys/:key', async () => {
    const w = await m.trader('1');
    const put = await m.send(w.viaWallet, { method: 'PUT', url: '/api/users/0x123', body: { username: 'polish_user' } });
    assert.deepEqual(outcomeOf(put), failure(400, 'Invalid wallet: must be 0x followed by 40 hex digits'));
    const nul = await m.send(w.viaKey, { method: 'DELETE', url: '/api/keys/a%00b' });
    assert.deepEqual(outcomeOf(nul), failure(400, 'Invalid key: must not contain NUL characters'));
    // The body keeps the body's wording.
    const body = await m.send(w.viaWallet, { method: 'PUT', url: `/api/users/${w.wallet}`, body: { username: 5 } });
    assert.deepEqual(outcomeOf(body), failure(400, 'invalid username: must be string'));
  });

  it('answers every odd request of a new client with a documented status and the {success: false, error} body, never a 5xx', async () => {
    const market = await m.createMarket();
    const w = await m.trader('5');
    const json = { 'content-type': 'application/json' };
    const requests: { method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'OPTIONS'; url: string; payload?: string; headers?: Record<string, string>; want: [number, string] }[] = [
      { method: 'GET', url: '/api/markets?page=abc', want: [400, 'Invalid page: must be between 1 and 1000000'] },
      { method: 'GET', url: '/api/markets?limit=0', want: [400, 'Invalid limit: must be between 1 and 100'] },
      { method: 'GET', url: '/api/markets?limit=1000', want: [400, 'Invalid limit: must be between 1 and 100'] },
      { method: 'GET', url: '/api/markets?limit=', want: [400, 'Invalid limit: must be between 1 and 100'] },
      { method: 'GET', url: '/api/markets?limit=10&limit=20', want: [400, 'Invalid limit: given more than once'] },
      { method: 'GET', url: '/api/trades?market=abc', want: [400, 'Invalid market: must be a positive integer'] },
      { method: 'GET', url: '/api/trades?market=2147483648', want: [400, 'Invalid market: must be a positive integer'] },
      { method: 'GET', url: '/api/trades?market=2147483647', want: [404, 'Market not found'] },
      { method: 'GET', url: '/api/markets/abc', want: [400, 'Invalid id: must be a positive integer'] },
      { method: 'GET', url: '/api/markets/0', want: [400, 'Invalid id: must be a positive integer'] },
      { method: 'GET', url: '/api/markets/2147483647', want: [404, 'Market not found'] },
      { method: 'GET', url: '/api/markets/2147483647/price', want: [404, 'Market not found'] },
      { method: 'GET', url: '/api/markets/2147483647/history', want: [404, 'Market not found'] },
      { method: 'GET', url: '/api/markets/prices?ids=1,abc', want: [400, 'Invalid ids: must be a comma-separated list of at most 50 market ids (positive integers)'] },
      { method: 'GET', url: '/api/markets/prices', want: [400, 'Missing required parameter: ids'] },
      { method: 'GET', url: '/api/events/2147483648', want: [404, 'Event not found'] },
      { method: 'GET', url: '/api/events/no-such-event', want: [404, 'Event not found'] },
      { method: 'GET', url: '/api/users/0x' + '0'.repeat(40), want: [404, 'User not found'] },
      { method: 'GET', url: '/api/users/0x123', want: [400, 'Invalid wallet: must be 0x followed by 40 hex digits'] },
      { method: 'GET', url: '/api/search?q=a', want: [400, 'Invalid q: must be between 2 and 200 characters'] },
      { method: 'GET', url: '/api/markets/%zz', want: [400, 'Malformed URL'] },
      { method: 'GET', url: '/api/nope', want: [404, 'Not found'] },
      { method: 'DELETE', url: `/api/markets/${market.id}`, want: [404, 'Not found'] },
      { method: 'OPTIONS', url: '/api/markets', want: [404, 'Not found'] },
      // Bodies: none, empty, not JSON, JSON of another shape, ids out of range.
      { method: 'POST', url: '/api/pool/estimate', want: [400, 'invalid body: must be object'] },
      { method: 'POST', url: '/api/pool/estimate', payload: '', headers: json, want: [400, 'malformed JSON body'] },
      { method: 'POST', url: '/api/pool/estimate', payload: 'market_id=1&side=yes', headers: { 'content-type': 'application/x-www-form-urlencoded' }, want: [400, 'malformed JSON body'] },
      { method: 'POST', url: '/api/pool/estimate', payload: '{"market_id":', headers: json, want: [400, 'malformed JSON body'] },
      { method: 'POST', url: '/api/pool/estimate', payload: '[]', headers: json, want: [400, 'invalid body: must be object'] },
      { method: 'POST', url: '/api/pool/estimate', payload: 'null', headers: json, want: [400, 'invalid body: must be object'] },
      { method: 'POST', url: '/api/pool/estimate', payload: '{}', headers: json, want: [400, 'missing required field: market_id'] },
      { method: 'POST', url: '/api/pool/estimate', payload: JSON.stringify({ market_id: 2147483648, side: 'yes', amount: 1 }), headers: json, want: [400, 'invalid market_id: must be <= 2147483647'] },
      { method: 'POST', url: '/api/pool/estimate', payload: JSON.stringify({ market_id: 2147483647, side: 'yes', amount: 1 }), headers: json, want: [404, 'Market not found'] },
      { method: 'POST', url: '/api/pool/estimate', payload: JSON.stringify({ market_id: String(market.id), side: 'yes', amount: 1 }), headers: json, want: [400, 'invalid market_id: must be integer'] },
      { method: 'POST', url: '/api/pool/estimate', payload: `{"market_id":${market.id},"side":"yes","amount":1e999}`, headers: json, want: [400, 'invalid amount: must be a finite number'] },
      { method: 'POST', url: '/api/pool/trade', want: [401, 'Signature required'] },
      { method: 'POST', url: '/api/pool/trade', payload: 'not json', headers: json, want: [400, 'malformed JSON body'] },
    ];
    for (const r of requests) {
      const res = await t.app.inject({ method: r.method, url: r.url, headers: r.headers ?? {}, ...(r.payload === undefined ? {} : { payload: r.payload }) });
      assert.deepEqual({ status: res.statusCode, body: res.json() }, failure(...r.want), `${r.method} ${r.url} ${r.payload ?? ''}`);
    }
    // Signed requests with odd bodies: the signature is checked first, then the body.
    const signedCases: [unknown, [number, string]][] = [
      [undefined, [400, 'invalid body: must be object']],
      ['', [400, 'malformed JSON body']],
      ['[]', [400, 'invalid body: must be object']],
      ['{}', [400, 'missing required field: wallet_addr']],
      [{ wallet_addr: w.wallet, market_id: 2147483647, side: 'yes', amount: 1 }, [404, 'Market not found']],
      [{ wallet_addr: w.wallet, market_id: 2147483648, side: 'yes', amount: 1 }, [400, 'invalid market_id: must be <= 2147483647']],
      [{ wallet_addr: w.wallet, market_id: market.id, side: 'yes', amount: '1' }, [400, 'invalid amount: must be number']],
    ];
    for (const [body, want] of signedCases) {
      assert.deepEqual(outcomeOf(await m.trade(w.viaKey, body)), failure(...want), JSON.stringify(body));
    }
    assert.deepEqual(await m.moneyOf(w.wallet), { balance: 5n * USDC, trades: 0 });
  });
});
