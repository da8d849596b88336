import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { assertBooksBalanced, manualClock, USDC } from './helpers/market.ts';
import { nowSeconds, signedRequest, tradeBody } from './helpers/market-client.ts';
import { failure, marketHttp, outcomeOf } from './helpers/market-http.ts';

const clock = manualClock(Date.now());

describe('market trading over HTTP: POST /api/pool/trade, /api/pool/estimate, /api/keys', () => {
  let t: TestApp;
  let m: ReturnType<typeof marketHttp>;

  before(async () => {
    t = await startTestApp({ clock, env: { RATE_LIMIT_MARKET_PER_MINUTE: '1000000' } });
    m = marketHttp(t, clock);
  });
  after(() => t.close());
  afterEach(() => assertBooksBalanced(t.deps.db));

  it('places a trade signed with an API key, answering every documented field (hand-computed)', async () => {
    const alice = await m.trader('100');
    const market = await m.createMarket();
    // Fresh 50/50 seeds; 10 USDC on yes: 10e6 + 50e6 * ln 1.2 -> 19,116,077 shares.
    const res = await m.trade(alice.viaKey, tradeBody(alice.wallet, market.id, 'yes', 10));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const data = res.body.data as Record<string, unknown>;
    assert.equal(res.body.success, true);
    assert.equal(typeof data.trade_id, 'number');
    assert.deepEqual(
      { ...data, trade_id: 0 },
      {
        trade_id: 0,
        market_id: market.id,
        side: 'yes',
        amount: 10,
        shares: 19.116077,
        price: 10_000_000 / 19_116_077,
        new_yes_price: 60 / 110,
        new_no_price: 50 / 110,
        remaining_balance: 90,
        pool: { yes_pool: 10, no_pool: 0, total_volume: 10 },
      },
    );
    assert.deepEqual(await m.moneyOf(alice.wallet), { balance: 90n * USDC, trades: 1 });
  });

  it('places a trade signed by the wallet, with the draw pool and price on a threeway market', async () => {
    const bob = await m.trader('50');
    const market = await m.createMarket({ market_type: 'threeway' });
    // Seeds 33,333,334 / 33,333,333 / 33,333,333; 10 on draw -> 27,490,951 shares.
    const res = await m.trade(bob.viaWallet, tradeBody(bob.wallet.toLowerCase(), market.id, 'draw', 10));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const data = res.body.data as Record<string, unknown>;
    assert.equal(data.shares, 27.490951);
    assert.equal(data.new_yes_price, 33_333_334 / 110_000_000);
    assert.equal(data.new_no_price, 33_333_333 / 110_000_000);
    assert.equal(data.new_draw_price, 43_333_333 / 110_000_000);
    assert.equal(data.remaining_balance, 40);
    assert.deepEqual(data.pool, { yes_pool: 0, no_pool: 0, draw_pool: 10, total_volume: 10 });
    const yes = await m.trade(bob.viaKey, tradeBody(bob.wallet, market.id, 'yes', 2.5));
    assert.equal(yes.status, 200);
    assert.deepEqual((yes.body.data as Record<string, unknown>).pool, { yes_pool: 2.5, no_pool: 0, draw_pool: 10, total_volume: 12.5 });
    assert.equal((yes.body.data as Record<string, unknown>).remaining_balance, 37.5);
  });

  it('estimates with the trade arithmetic and the settlement payout, writing nothing', async () => {
    const [a, b, c] = [await m.trader('100'), await m.trader('100'), await m.trader('100')];
    const market = await m.createMarket();
    assert.equal((await m.trade(a.viaKey, tradeBody(a.wallet, market.id, 'yes', 10))).status, 200);
    assert.equal((await m.trade(b.viaKey, tradeBody(b.wallet, market.id, 'no', 20))).status, 200);

    // C quotes 5 on yes: S = 60, O = 70 -> 10,602,989 shares. Resolved yes now: W = 15, L = 20,
    // fee = 1, D = 19, H = 19,116,077 + 10,602,989: C gets 5 + floor(19e6 * 10,602,989 / 29,719,066).
    const before = await m.adminCall('GET', '/admin/audit');
    const est = await m.estimate({ market_id: market.id, side: 'yes', amount: 5 });
    assert.equal(est.status, 200, JSON.stringify(est.body));
    const e = est.body.data as Record<string, number>;
    assert.deepEqual(e, {
      market_id: market.id,
      side: 'yes',
      amount: 5,
      shares: 10.602989,
      price: 5_000_000 / 10_602_989,
      yes_price: 60 / 130,
      no_price: 70 / 130,
      new_yes_price: 65 / 135,
      new_no_price: 70 / 135,
      payout_if_win: 11.778705,
      profit_if_win: 6.778705,
    });
    assert.deepEqual((await m.adminCall('GET', '/admin/audit')).body, before.body, 'an estimate writes nothing');

    const trade = await m.trade(c.viaKey, tradeBody(c.wallet, market.id, 'yes', 5));
    const d = trade.body.data as Record<string, number>;
    assert.deepEqual([d.shares, d.price, d.new_yes_price, d.new_no_price], [e.shares, e.price, e.new_yes_price, e.new_no_price]);
    await m.resolve(market.id, 'yes');
    assert.equal((await m.moneyOf(c.wallet)).balance, 95n * USDC + 11_778_705n, 'the estimated payout is what settlement paid');

    const three = await m.createMarket({ market_type: 'threeway' });
    const e3 = (await m.estimate({ market_id: three.id, side: 'draw', amount: 10 })).body.data as Record<string, number>;
    assert.equal(e3.shares, 27.490951);
    assert.equal(e3.draw_price, 33_333_333 / 100_000_000);
    assert.equal(e3.new_draw_price, 43_333_333 / 110_000_000);
    assert.equal(e3.payout_if_win, 10, 'nobody staked against it: the stake back');
  });

  it('refuses estimates the trade would refuse, with the same messages', async () => {
    const active = await m.createMarket();
    const pending = await m.createMarket({ status: 'pending' });
    const cases: [unknown, number, string][] = [
      [{ market_id: 999_999, side: 'yes', amount: 5 }, 404, 'Market not found'],
      [{ market_id: pending.id, side: 'yes', amount: 5 }, 400, 'Market not active'],
      [{ market_id: active.id, side: 'draw', amount: 5 }, 400, 'Invalid side'],
      [{ market_id: active.id, side: 'yes', amount: 0.5 }, 400, 'Minimum trade is 1 USDC'],
      [{ market_id: active.id, side: 'yes', amount: 1.0000001 }, 400, 'amount must have at most 6 decimals'],
      [{ market_id: active.id, side: 'yes', amount: '5' }, 400, 'invalid amount: must be number'],
      [{ market_id: String(active.id), side: 'yes', amount: 5 }, 400, 'invalid market_id: must be integer'],
      [{ market_id: active.id, side: 'yes', amount: 5, wallet_addr: '0x' + '1'.repeat(40) }, 400, 'unknown field: wallet_addr'],
    ];
    for (const [body, status, error] of cases) assert.deepEqual(outcomeOf(await m.estimate(body)), failure(status, error), JSON.stringify(body));
  });

  it('replays the first answer for a repeated Idempotency-Key, moves money once, and refuses another body (409)', async () => {
    const w = await m.trader('20');
    const market = await m.createMarket();
    const body = JSON.stringify(tradeBody(w.wallet, market.id, 'no', 4));
    const headers = { 'idempotency-key': 'order-7f3a' };
    const first = await m.trade(w.viaKey, body, { headers });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const again = await m.trade(w.viaWallet, body, { headers });
    assert.equal(again.status, 200);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(again.body, first.body);
    assert.deepEqual(await m.moneyOf(w.wallet), { balance: 16n * USDC, trades: 1 });

    const other = await m.trade(w.viaKey, tradeBody(w.wallet, market.id, 'no', 5), { headers });
    assert.deepEqual(outcomeOf(other), failure(409, 'Idempotency-Key reused with a different body'));

    // A refused trade is not remembered: the same key works once the balance covers it.
    const big = JSON.stringify(tradeBody(w.wallet, market.id, 'yes', 30));
    const retry = { 'idempotency-key': 'order-big' };
    assert.deepEqual(outcomeOf(await m.trade(w.viaKey, big, { headers: retry })), failure(400, 'Insufficient balance'));
    await m.deposit(w.wallet, '100');
    assert.equal((await m.trade(w.viaKey, big, { headers: retry })).status, 200);
    assert.equal((await m.trade(w.viaKey, big, { headers: retry })).headers['idempotent-replayed'], 'true');
    assert.deepEqual(await m.moneyOf(w.wallet), { balance: 86n * USDC, trades: 2 });
    assert.deepEqual(outcomeOf(await m.trade(w.viaKey, big, { headers: { 'idempotency-key': 'bad key' } })), failure(400, 'Invalid Idempotency-Key'));
  });

  it('refuses malformed bodies with 400 naming the field, before touching money', async () => {
    const w = await m.trader('100');
    const market = await m.createMarket();
    const base = tradeBody(w.wallet, market.id, 'yes', 5);
    const cases: [unknown, string][] = [
      [{ ...base, amount: '5' }, 'invalid amount: must be number'],
      [{ ...base, amount: 'NaN' }, 'invalid amount: must be number'],
      [{ ...base, amount: null }, 'invalid amount: must be number'],
      [{ ...base, amount: true }, 'invalid amount: must be number'],
      [{ ...base, market_id: String(market.id) }, 'invalid market_id: must be integer'],
      [{ ...base, market_id: 1.5 }, 'invalid market_id: must be integer'],
      [{ ...base, market_id: 0 }, 'invalid market_id: must be >= 1'],
      [{ ...base, market_id: 2 ** 31 }, 'invalid market_id: must be <= 2147483647'],
      [{ ...base, side: 1 }, 'Invalid side'],
      [{ ...base, amount: 1.0000001 }, 'amount must have at most 6 decimals'],
      [{ ...base, amount: 12.3456789 }, 'amount must have at most 6 decimals'],
      // Below the minimum whatever its decimals (docs/api-decisions.md, "Market API: thirteenth audit").
      [{ ...base, amount: 1e-7 }, 'Minimum trade is 1 USDC'],
      [{ wallet_addr: base.wallet_addr, market_id: base.market_id, side: 'yes' }, 'missing required field: amount'],
      [{ ...base, price: 0.5 }, 'unknown field: price'],
    ];
    for (const [body, error] of cases) assert.deepEqual(outcomeOf(await m.trade(w.viaKey, body)), failure(400, error), JSON.stringify(body));
    // JSON has no NaN and no Infinity; a number too large for float64 parses as Infinity.
    const raw = JSON.stringify(base);
    assert.deepEqual(outcomeOf(await m.trade(w.viaKey, raw.replace('"amount":5', '"amount":NaN'))), failure(400, 'malformed JSON body'));
    assert.deepEqual(outcomeOf(await m.trade(w.viaKey, raw.replace('"amount":5', '"amount":1e400'))), failure(400, 'invalid amount: must be a finite number'));
    assert.deepEqual(outcomeOf(await m.trade(w.viaKey, '[1,2]')), failure(400, 'invalid body: must be object'));
    assert.deepEqual(await m.moneyOf(w.wallet), { balance: 100n * USDC, trades: 0 });
  });

  it('refuses amounts out of bounds, sides the market lacks, and unknown markets with the documented errors', async () => {
    const w = await m.trader('100');
    const market = await m.createMarket();
    const cases: [unknown, number, string][] = [
      [tradeBody(w.wallet, market.id, 'yes', 0.999999), 400, 'Minimum trade is 1 USDC'],
      [tradeBody(w.wallet, market.id, 'yes', 0), 400, 'Minimum trade is 1 USDC'],
      [tradeBody(w.wallet, market.id, 'yes', -5), 400, 'Minimum trade is 1 USDC'],
      [tradeBody(w.wallet, market.id, 'yes', -0.0000001), 400, 'Minimum trade is 1 USDC'],
      [tradeBody(w.wallet, market.id, 'yes', 1e20), 400, 'Maximum trade is 1000000000 USDC'],
      [tradeBody(w.wallet, market.id, 'yes', 1e308), 400, 'Maximum trade is 1000000000 USDC'],
      [tradeBody(w.wallet, market.id, 'yes', 1_000_000_000), 400, 'Insufficient balance'],
      [tradeBody(w.wallet, market.id, 'yes', 100.000001), 400, 'Insufficient balance'],
      [tradeBody(w.wallet, market.id, 'draw', 5), 400, 'Invalid side'],
      [tradeBody(w.wallet, market.id, 'maybe', 5), 400, 'Invalid side'],
      [tradeBody(w.wallet, market.id, 'YES', 5), 400, 'Invalid side'],
      [tradeBody(w.wallet, market.id, '', 5), 400, 'Invalid side'],
      [tradeBody(w.wallet, 999_999, 'yes', 5), 404, 'Market not found'],
    ];
    for (const [body, status, error] of cases) assert.deepEqual(outcomeOf(await m.trade(w.viaKey, body)), failure(status, error), JSON.stringify(body));
    assert.deepEqual(await m.moneyOf(w.wallet), { balance: 100n * USDC, trades: 0 });
    // Exactly the whole balance, to the micro-USDC, is accepted.
    const all = await m.trade(w.viaKey, tradeBody(w.wallet, market.id, 'yes', 100));
    assert.equal((all.body.data as Record<string, number>).remaining_balance, 0);
    assert.deepEqual(outcomeOf(await m.trade(w.viaKey, tradeBody(w.wallet, market.id, 'yes', 1))), failure(400, 'Insufficient balance'));
    const poor = await m.trader();
    assert.deepEqual(outcomeOf(await m.trade(poor.viaWallet, tradeBody(poor.wallet, market.id, 'yes', 1))), failure(400, 'Insufficient balance'));
  });

  it('refuses trades on pending, resolved, cancelled and ended markets', async () => {
    const w = await m.trader('100');
    const pending = await m.createMarket({ status: 'pending' });
    const resolved = await m.createMarket();
    const cancelled = await m.createMarket();
    assert.equal((await m.trade(w.viaKey, tradeBody(w.wallet, resolved.id, 'yes', 3))).status, 200);
    assert.equal((await m.trade(w.viaKey, tradeBody(w.wallet, cancelled.id, 'no', 3))).status, 200);
    await m.resolve(resolved.id, 'no');
    await m.cancel(cancelled.id);
    const ending = await m.createMarket({ end_date: new Date(clock.now() + 3_600_000).toISOString() });
    const money = await m.moneyOf(w.wallet);
    for (const id of [pending.id, resolved.id, cancelled.id]) {
      assert.deepEqual(outcomeOf(await m.trade(w.viaKey, tradeBody(w.wallet, id, 'yes', 5))), failure(400, 'Market not active'));
      assert.deepEqual(outcomeOf(await m.trade(w.viaWallet, tradeBody(w.wallet, id, 'no', 5))), failure(400, 'Market not active'));
    }
    assert.equal((await m.trade(w.viaKey, tradeBody(w.wallet, ending.id, 'yes', 2))).status, 200);
    clock.advance(3_600_000);
    assert.deepEqual(outcomeOf(await m.trade(w.viaKey, tradeBody(w.wallet, ending.id, 'yes', 5))), failure(400, 'Market has ended'));
    assert.deepEqual(outcomeOf(await m.estimate({ market_id: ending.id, side: 'yes', amount: 5 })), failure(400, 'Market has ended'));
    assert.deepEqual(await m.moneyOf(w.wallet), { balance: money.balance - 2n * USDC, trades: money.trades + 1 });
  });

  it('refuses missing, stale, future, replayed and misdirected signatures, moving no money', async () => {
    const w = await m.trader('50');
    const market = await m.createMarket();
    const body = JSON.stringify(tradeBody(w.wallet, market.id, 'yes', 5));
    const now = () => nowSeconds(clock.now());
    const sendAt = (ts: number, signer = w.viaKey, extra = {}) => m.trade(signer, body, { timestamp: ts, ...extra });

    assert.deepEqual(outcomeOf(await m.trade(null, body)), failure(401, 'Signature required'));
    for (const skew of [-31, 31, -3600, 86_400]) {
      assert.deepEqual(outcomeOf(await sendAt(now() + skew + 1)), failure(401, 'Timestamp out of range'), `hmac ${skew}`);
      assert.deepEqual(outcomeOf(await sendAt(now() + skew + 1, w.viaWallet)), failure(401, 'Timestamp out of range'), `wallet ${skew}`);
    }
    for (const signer of [w.viaKey, w.viaWallet]) {
      const signed = await signedRequest(signer, { method: 'POST', url: '/api/pool/trade', body, timestamp: now() });
      assert.equal((await t.app.inject(signed)).statusCode, 200);
      const replay = await t.app.inject(signed);
      assert.deepEqual({ status: replay.statusCode, body: replay.json() }, failure(401, 'Signature already used'));
      const otherBody = JSON.stringify(tradeBody(w.wallet, market.id, 'yes', 25));
      assert.deepEqual(outcomeOf(await m.trade(signer, otherBody, { signedBody: body })), failure(401, 'Invalid signature'), 'signed another body');
      assert.deepEqual(outcomeOf(await m.trade(signer, body, { signedPath: '/api/pool/estimate' })), failure(401, 'Invalid signature'), 'signed another path');
    }
    assert.deepEqual(await m.moneyOf(w.wallet), { balance: 40n * USDC, trades: 2 });
  });

  it("refuses an API key or a wallet signature used for another wallet's trade (403)", async () => {
    const mallory = await m.trader('50');
    const victim = await m.trader('50');
    const market = await m.createMarket();
    const stolen = tradeBody(victim.wallet, market.id, 'yes', 5);
    assert.deepEqual(outcomeOf(await m.trade(mallory.viaKey, stolen)), failure(403, 'API key wallet mismatch'));
    assert.deepEqual(outcomeOf(await m.trade(mallory.viaWallet, stolen)), failure(403, 'Wallet mismatch'));
    // A wallet_addr that is no wallet at all is malformed (400 naming it), not another wallet.
    assert.deepEqual(
      outcomeOf(await m.trade(mallory.viaKey, { ...stolen, wallet_addr: 'not-a-wallet' })),
      failure(400, 'invalid wallet_addr: must be 0x followed by 40 hex digits'),
    );
    assert.deepEqual(await m.moneyOf(victim.wallet), { balance: 50n * USDC, trades: 0 });
    assert.deepEqual(await m.moneyOf(mallory.wallet), { balance: 50n * USDC, trades: 0 });
  });

  it('issues API keys to a wallet signature, which trade at once, and revokes them at once', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    await m.deposit(account.address, '30');
    const market = await m.createMarket();
    const issued = await m.send({ account }, { method: 'POST', url: '/api/keys' });
    assert.equal(issued.status, 201, JSON.stringify(issued.body));
    const key = issued.body.data as { api_key: string; api_secret: string; wallet: string; created_at: string };
    assert.match(key.api_key, /^mk_[0-9a-f]{32}$/);
    assert.match(key.api_secret, /^mks_[A-Za-z0-9_-]{43}$/);
    assert.equal(key.wallet, account.address.toLowerCase());
    assert.equal((await m.trade({ apiKey: key }, tradeBody(account.address, market.id, 'yes', 5))).status, 200);

    const withBody = await m.send({ account }, { method: 'POST', url: '/api/keys', body: { wallet_addr: account.address } });
    assert.equal(withBody.status, 201);
    const second = withBody.body.data as { api_key: string; api_secret: string };

    // An API key cannot mint keys; nobody can without a signature.
    assert.deepEqual(outcomeOf(await m.send({ apiKey: key }, { method: 'POST', url: '/api/keys' })), failure(403, 'Wallet signature required'));
    assert.deepEqual(outcomeOf(await m.send(null, { method: 'POST', url: '/api/keys' })), failure(401, 'Signature required'));
    const other = privateKeyToAccount(generatePrivateKey());
    assert.deepEqual(outcomeOf(await m.send({ account }, { method: 'POST', url: '/api/keys', body: { wallet_addr: other.address } })), failure(403, 'Wallet mismatch'));
    assert.deepEqual(outcomeOf(await m.send({ account }, { method: 'POST', url: '/api/keys', body: { name: 'x' } })), failure(400, 'unknown field: name'));

    // Revoking: another wallet cannot, the key itself can, and it is refused from then on.
    const stranger = await m.trader('1');
    assert.deepEqual(outcomeOf(await m.send(stranger.viaKey, { method: 'DELETE', url: `/api/keys/${key.api_key}` })), failure(404, 'API key not found'));
    assert.equal((await m.trade({ apiKey: key }, tradeBody(account.address, market.id, 'yes', 1))).status, 200, 'still live');
    const revoked = await m.send({ apiKey: key }, { method: 'DELETE', url: `/api/keys/${key.api_key}` });
    assert.deepEqual(outcomeOf(revoked), { status: 200, body: { success: true, data: { api_key: key.api_key, revoked: true } } });
    assert.deepEqual(outcomeOf(await m.trade({ apiKey: key }, tradeBody(account.address, market.id, 'yes', 1))), failure(401, 'Invalid API key'));
    assert.deepEqual(outcomeOf(await m.send({ account }, { method: 'DELETE', url: `/api/keys/${key.api_key}` })), failure(404, 'API key not found'));
    // The wallet signature revokes too; the other key keeps working until then.
    assert.equal((await m.trade({ apiKey: second }, tradeBody(account.address, market.id, 'no', 1))).status, 200);
    assert.equal((await m.send({ account }, { method: 'DELETE', url: `/api/keys/${second.api_key}` })).status, 200);
    assert.deepEqual(outcomeOf(await m.trade({ apiKey: second }, tradeBody(account.address, market.id, 'no', 1))), failure(401, 'Invalid API key'));
    assert.deepEqual(await m.moneyOf(account.address), { balance: 23n * USDC, trades: 3 });
  });

  it('caps the live keys a wallet can issue itself, and lets the operator issue more', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    for (let i = 0; i < 20; i++) assert.equal((await m.send({ account }, { method: 'POST', url: '/api/keys' })).status, 201);
    assert.deepEqual(
      outcomeOf(await m.send({ account }, { method: 'POST', url: '/api/keys' })),
      failure(400, 'Too many API keys (at most 20 live keys per wallet)'),
    );
    const byOperator = await m.adminCall('POST', `/admin/wallets/${account.address}/api-keys`);
    assert.equal(byOperator.status, 201);
    assert.equal(byOperator.body.wallet, account.address.toLowerCase());
    assert.match(String(byOperator.body.api_secret), /^mks_/);
    assert.deepEqual(outcomeOf(await m.adminCall('POST', '/admin/wallets/0xnope/api-keys')), {
      status: 400,
      body: { error: 'invalid wallet: must be 0x followed by 40 hex digits' },
    });
  });

  it('documents the routes in OpenAPI under the market tag', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, { tags?: string[] }>> };
    for (const [path, method] of [['/api/pool/trade', 'post'], ['/api/pool/estimate', 'post'], ['/api/keys', 'post'], ['/api/keys/{key}', 'delete']] as const) {
      assert.deepEqual(doc.paths[path]?.[method]?.tags, ['market'], `${method} ${path}`);
    }
    assert.ok(doc.paths['/admin/wallets/{wallet}/api-keys']?.post);
  });
});
