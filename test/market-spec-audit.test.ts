import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { marketAuditSuite } from './helpers/market-socket.ts';
import { tradeBody } from './helpers/market-client.ts';

/**
 * The market API checked against market-api.md as a client meets it: over a real socket, with
 * fetch, the server's own clock. Each case here was a gap found by auditing the spec.
 */

describe('market API against market-api.md (audit, over HTTP)', () => {
  const { base, call, admin, ok, send, trader, endIn, market: marketIn } = marketAuditSuite();
  const market = (fields: Record<string, unknown> = {}) => marketIn('audit', fields);
  it('refuses a withdrawal beyond the balance with the documented 400 Insufficient balance', async () => {
    const w = await trader('20');
    const over = await send(w.viaKey, { method: 'POST', url: '/api/pool/withdraw', body: { wallet_addr: w.wallet, amount: 20.000001 } });
    assert.deepEqual(over, { status: 400, body: { success: false, error: 'Insufficient balance' } });
    const empty = privateKeyToAccount(generatePrivateKey());
    const none = await send({ account: empty }, { method: 'POST', url: '/api/pool/withdraw', body: { wallet_addr: empty.address, amount: 1 } });
    assert.deepEqual(none, { status: 400, body: { success: false, error: 'Insufficient balance' } });
    const b = (await ok(call('GET', `/api/pool/balance/${w.wallet}`))).data;
    assert.equal(b.locked, 0);
    assert.equal(b.balance, 20);
  });

  it('lists trades with tx_hash as a string (the spec types it string), the hash of the trade record', async () => {
    const w = await trader('10');
    const m = await market();
    const placed = await send(w.viaKey, { method: 'POST', url: '/api/pool/trade', body: tradeBody(w.wallet, m.id, 'yes', 2.5) });
    assert.equal(placed.status, 200, JSON.stringify(placed.body));
    const list = (await ok(call('GET', `/api/trades?market=${m.id}`))).data;
    assert.equal(list.length, 1);
    const tr = list[0];
    assert.equal(typeof tr.tx_hash, 'string');
    // docs/decisions-market-reads.md: 0x + sha256 of `svc-trade v1 <id> <market> <wallet> <side> <amount units> <shares units> <ms>`.
    const text = `svc-trade v1 ${tr.id} ${m.id} ${w.wallet.toLowerCase()} yes ${Math.round(tr.amount * 1e6)} ${Math.round(tr.shares * 1e6)} ${Date.parse(tr.timestamp)}`;
    assert.equal(tr.tx_hash, '0x' + createHash('sha256').update(text).digest('hex'));
    const all = (await ok(call('GET', '/api/trades?limit=100'))).data;
    assert.ok(all.every((x: { tx_hash: unknown }) => typeof x.tx_hash === 'string' && /^0x[0-9a-f]{64}$/.test(x.tx_hash)));
  });

  it('shows username and avatar_url as strings ("" when unset) in the profile and the leaderboard', async () => {
    const w = await trader('10');
    const m = await market();
    assert.equal((await send(w.viaKey, { method: 'POST', url: '/api/pool/trade', body: tradeBody(w.wallet, m.id, 'no', 1) })).status, 200);
    const profile = (await ok(call('GET', `/api/users/${w.wallet}`))).data;
    assert.equal(profile.username, '');
    assert.equal(profile.avatar_url, '');
    const board = (await ok(call('GET', '/api/users/leaderboard?limit=100'))).data;
    const entry = board.find((e: { wallet: string }) => e.wallet === w.wallet.toLowerCase());
    assert.ok(entry);
    assert.equal(entry.username, '');
    assert.equal(entry.avatar_url, '');
    // Cleared through the signed PUT: the answer shows "" too.
    const put = await send(w.viaWallet, { method: 'PUT', url: `/api/users/${w.wallet}`, body: { username: 'audit_user', avatar_url: null } });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.deepEqual(put.body.data, { wallet: w.wallet.toLowerCase(), username: 'audit_user', avatar_url: '' });
    assert.equal((await ok(call('GET', `/api/users/${w.wallet}`))).data.username, 'audit_user');
  });

  it('gives an event created without end_date the end of its last market (Event end_date is a string)', async () => {
    const ev = await ok(admin('POST', '/admin/events', { title: `Open-ended ${Math.random()}`, category: 'audit' }), 201);
    const first = endIn(10);
    const last = endIn(20);
    await market({ event_id: ev.id, end_date: first });
    await market({ event_id: ev.id, end_date: last });
    const detail = (await ok(call('GET', `/api/events/${ev.id}`))).data;
    assert.equal(detail.end_date, last);
    const listed = (await ok(call('GET', '/api/events?limit=100'))).data.find((e: { id: number }) => e.id === ev.id);
    assert.equal(listed.end_date, last);
  });

  it('takes a signed JSON body whatever content type the client sent (none, text/plain, form)', async () => {
    const w = await trader('10');
    const m = await market();
    const body = tradeBody(w.wallet, m.id, 'yes', 1);
    const none = await send(w.viaKey, { method: 'POST', url: '/api/pool/trade', body }, true);
    assert.equal(none.status, 200, JSON.stringify(none.body));
    const plain = await send(w.viaKey, { method: 'POST', url: '/api/pool/trade', body, headers: { 'content-type': 'text/plain;charset=UTF-8' } });
    assert.equal(plain.status, 200, JSON.stringify(plain.body));
    const form = await send(w.viaWallet, { method: 'POST', url: '/api/pool/trade', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal(form.status, 200, JSON.stringify(form.body));
    // The bytes are still what the signature covers: another body is refused, and bad JSON is 400.
    const unsigned = await send(w.viaKey, { method: 'POST', url: '/api/pool/trade', body, signedBody: '', headers: { 'content-type': 'text/plain' } });
    assert.deepEqual(unsigned, { status: 401, body: { success: false, error: 'Invalid signature' } });
    const broken = await send(w.viaKey, { method: 'POST', url: '/api/pool/trade', body: '{"wallet_addr":', headers: { 'content-type': 'text/plain' } });
    assert.deepEqual(broken, { status: 400, body: { success: false, error: 'malformed JSON body' } });
    const estimate = await fetch(`${base()}/api/pool/estimate`, { method: 'POST', body: JSON.stringify({ market_id: m.id, side: 'no', amount: 1 }) });
    assert.equal(estimate.status, 200);
    assert.equal((await ok(call('GET', `/api/pool/balance/${w.wallet}`))).data.balance, 7);
  });

  it('bounds the ledger limit like every limit of contract.md: 1..100, default 50', async () => {
    const w = privateKeyToAccount(generatePrivateKey()).address;
    for (let i = 0; i < 3; i++) await ok(admin('POST', `/admin/wallets/${w}/deposit`, { amount: '1' }));
    for (const q of ['limit=101', 'limit=500', 'limit=0']) {
      assert.deepEqual(await call('GET', `/api/pool/ledger/${w}?${q}`), { status: 400, body: { success: false, error: 'Invalid limit: must be between 1 and 100' } }, q);
    }
    assert.equal((await ok(call('GET', `/api/pool/ledger/${w}?limit=100`))).count, 3);
  });

  it('answers the spec message Invalid side for any side that is not yes, no or draw, strings or not', async () => {
    const w = await trader('10');
    const m = await market();
    for (const side of [1, null, true, 'YES', '', ['yes'], 'draw']) {
      const r = await send(w.viaKey, { method: 'POST', url: '/api/pool/trade', body: tradeBody(w.wallet, m.id, side as string, 1) });
      assert.deepEqual(r, { status: 400, body: { success: false, error: 'Invalid side' } }, JSON.stringify(side));
      const e = await call('POST', '/api/pool/estimate', { market_id: m.id, side, amount: 1 });
      assert.deepEqual(e, { status: 400, body: { success: false, error: 'Invalid side' } }, `estimate ${JSON.stringify(side)}`);
    }
    const missing = await send(w.viaKey, { method: 'POST', url: '/api/pool/trade', body: { wallet_addr: w.wallet, market_id: m.id, amount: 1 } });
    assert.deepEqual(missing, { status: 400, body: { success: false, error: 'missing required field: side' } });
    assert.equal((await ok(call('GET', `/api/pool/balance/${w.wallet}`))).data.balance, 10);
  });
});
