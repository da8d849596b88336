import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { marketAuditSuite } from './helpers/market-socket.ts';
import { hmacHeaders, nowSeconds, tradeBody } from './helpers/market-client.ts';

/**
 * The third audit of the market API against market-api.md (and the decisions of docs/), over a
 * real socket with fetch and the server's own clock. Each case is a finding of the earlier audit
 * that market-spec-audit.test.ts and market-spec-audit-2.test.ts did not cover.
 */

describe('market API against market-api.md (third audit, over HTTP)', () => {
  const { call, admin, ok, send, trader, market: marketIn } = marketAuditSuite();
  const market = (fields: Record<string, unknown> = {}) => marketIn('audit3', fields);
  const featured = async () => (await ok(call('GET', '/api/markets/featured'))).data as { id: number; featured: boolean } | null;

  it('features only a market still open: resolving or cancelling the featured market ends its featuring', async () => {
    const w = await trader('10');
    for (const settle of ['resolve', 'cancel'] as const) {
      const m = await market();
      assert.equal((await send(w.viaKey, { method: 'POST', url: '/api/pool/trade', body: tradeBody(w.wallet, m.id, 'yes', 2) })).status, 200);
      await ok(admin('POST', `/admin/markets/${m.id}/feature`));
      assert.equal((await featured())?.id, m.id);
      await ok(admin('POST', `/admin/markets/${m.id}/${settle}`, settle === 'resolve' ? { outcome: 'yes' } : undefined));
      assert.equal(await featured(), null, `${settle}d: no market is featured until an admin features another`);
      assert.equal((await ok(call('GET', `/api/markets/${m.id}`))).data.featured, false, settle);
    }
    // A pending market an admin features is shown (featuring it is the admin's choice), and the next pick replaces it.
    const pending = await market({ status: 'pending' });
    await ok(admin('POST', `/admin/markets/${pending.id}/feature`));
    assert.equal((await featured())?.id, pending.id);
    const next = await market();
    await ok(admin('POST', `/admin/markets/${next.id}/feature`));
    assert.deepEqual({ id: (await featured())?.id, featured: (await featured())?.featured }, { id: next.id, featured: true });
  });

  it('features only an event still open: the featured event whose last market settles is featured no more, and a resolved one cannot be featured', async () => {
    const w = await trader('10');
    const ev = (await ok(admin('POST', '/admin/events', { title: `Audit3 event ${Math.random()}`, category: 'audit3' }), 201)) as { id: number };
    const [a, b] = [await market({ event_id: ev.id }), await market({ event_id: ev.id })];
    assert.equal((await send(w.viaKey, { method: 'POST', url: '/api/pool/trade', body: tradeBody(w.wallet, a.id, 'no', 3) })).status, 200);
    await ok(admin('POST', `/admin/events/${ev.id}/feature`));
    const featuredEvent = async () => (await ok(call('GET', '/api/events/featured'))).data as { id: number; status: string } | null;
    await ok(admin('POST', `/admin/markets/${a.id}/resolve`, { outcome: 'no' }));
    assert.deepEqual(await featuredEvent().then((e) => e && { id: e.id, status: e.status }), { id: ev.id, status: 'active' }, 'one market still open');
    await ok(admin('POST', `/admin/markets/${b.id}/cancel`));
    assert.equal(await featuredEvent(), null, 'the event resolved with its last market');
    assert.deepEqual(await admin('POST', `/admin/events/${ev.id}/feature`), { status: 400, body: { error: 'Event already resolved' } });
    assert.equal(await featuredEvent(), null);
  });

  it('answers a market path with a trailing slash as the path without it, across the market API (not the inference API)', async () => {
    const category = `slash-${Math.random().toString(36).slice(2)}`;
    const m = await marketIn(category);
    const same = async (path: string, slashed: string) => {
      const [a, b] = [await call('GET', path), await call('GET', slashed)];
      assert.equal(b.status, 200, `${slashed}: ${JSON.stringify(b.body)}`);
      assert.deepEqual(b, a, slashed);
    };
    await same('/api/markets', '/api/markets/');
    await same(`/api/markets?category=${category}`, `/api/markets/?category=${category}`);
    for (const p of ['/api/markets/trending', '/api/markets/categories', `/api/markets/${m.id}`, `/api/markets/${m.id}/price`, '/api/events', '/api/trades', '/api/search?q=slash']) {
      const slashed = p.includes('?') ? p.replace('?', '/?') : `${p}/`;
      await same(p, slashed);
    }
    // A signed request signs the path it sends, slash included.
    const w = await trader('5');
    const slashed = await send(w.viaKey, { method: 'POST', url: '/api/pool/trade/', body: tradeBody(w.wallet, m.id, 'yes', 1) });
    assert.equal(slashed.status, 200, JSON.stringify(slashed.body));
    const otherPath = await send(w.viaWallet, { method: 'POST', url: '/api/pool/trade/', signedPath: '/api/pool/trade', body: tradeBody(w.wallet, m.id, 'yes', 1) });
    assert.deepEqual(otherPath, { status: 401, body: { success: false, error: 'Invalid signature' } });
    // The inference API keeps its exact paths.
    const inference = await call('GET', '/v1/available-models/');
    assert.deepEqual(inference, { status: 404, body: { error: 'not found: GET /v1/available-models/' } });
  });

  it('tells a wallet signer that the wallet of x-wallet-message must be lower case (a checksummed address is 401 saying so)', async () => {
    const w = await trader('5');
    const m = await market();
    const body = JSON.stringify(tradeBody(w.wallet, m.id, 'yes', 1));
    const digest = createHash('sha256').update(body).digest('hex');
    const signed = async (wallet: string, ts: number) => {
      const message = `svc-auth v1 ${wallet} ${ts} POST /api/pool/trade ${digest}`;
      const signature = await w.account.signMessage({ message });
      return call('POST', '/api/pool/trade', JSON.parse(body), { 'x-wallet-message': message, 'x-wallet-signature': signature });
    };
    assert.notEqual(w.account.address, w.account.address.toLowerCase(), 'viem gives the checksummed address');
    const checksummed = await signed(w.account.address, nowSeconds() - 2);
    assert.deepEqual(checksummed, { status: 401, body: { success: false, error: 'Invalid signature: the wallet in x-wallet-message must be lower case' } });
    // The message in the documented form is accepted; the refusal moved no money.
    const lower = await signed(w.account.address.toLowerCase(), nowSeconds() - 3);
    assert.equal(lower.status, 200, JSON.stringify(lower.body));
    assert.equal((await ok(call('GET', `/api/pool/balance/${w.wallet}`))).data.balance, 4);
  });

  it('takes the HMAC signature in lower-case hex only, and says so when it is upper case', async () => {
    const w = await trader('5');
    const m = await market();
    const body = JSON.stringify(tradeBody(w.wallet, m.id, 'no', 1));
    const creds = (w.viaKey as { apiKey: { api_key: string; api_secret: string } }).apiKey;
    const signedAt = (ts: number) => hmacHeaders(creds, { method: 'POST', path: '/api/pool/trade', body, timestamp: ts });
    const h = signedAt(nowSeconds() - 4);
    const upper = await call('POST', '/api/pool/trade', JSON.parse(body), { ...h, 'x-api-signature': h['x-api-signature']!.toUpperCase() });
    assert.deepEqual(upper, { status: 401, body: { success: false, error: 'Invalid signature: x-api-signature must be lower-case hex' } });
    const lower = await call('POST', '/api/pool/trade', JSON.parse(body), h);
    assert.equal(lower.status, 200, JSON.stringify(lower.body));
    assert.equal((await ok(call('GET', `/api/pool/balance/${w.wallet}`))).data.balance, 4);
  });

  it('reads a q of only spaces as no q: the list is the one without it (only /api/search requires 2 characters)', async () => {
    const category = `blank-${Math.random().toString(36).slice(2)}`;
    await marketIn(category);
    await marketIn(category);
    const plain = await ok(call('GET', `/api/markets?category=${category}`));
    assert.equal(plain.total, 2);
    for (const q of ['', '%20', '%20%20%20', '%09%20']) {
      assert.deepEqual(await ok(call('GET', `/api/markets?category=${category}&q=${q}`)), plain, JSON.stringify(q));
    }
    assert.deepEqual(await call('GET', '/api/search?q=%20%20%20'), { status: 400, body: { success: false, error: 'Invalid q: must be between 2 and 200 characters' } });
  });
});
