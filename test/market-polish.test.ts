import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
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
});
