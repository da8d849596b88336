import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import type { KyselyPlugin } from 'kysely';
import { createMarket } from '../src/market/markets/markets.admin.ts';
import { resolveMarket } from '../src/market/settlement/resolve-market.ts';
import { HttpError } from '../src/shared/errors.ts';
import { hmacHeaders, nowSeconds, tradeBody } from './helpers/market-client.ts';
import { marketAuditSuite, marketOverSocket } from './helpers/market-socket.ts';

/**
 * The eighth audit of the market API against market-api.md (docs/api-decisions.md, "Market API:
 * eighth audit"), over a real socket, as a trader and a bot meet it.
 */
describe('market API against market-api.md (eighth audit, over HTTP)', () => {
  const { app, base, call, ok, send, trader, market: marketIn } = marketAuditSuite();
  const market = (fields: Record<string, unknown> = {}) => marketIn('audit8', fields);

  /** The data of the first `event: <name>` of an SSE body, read until it arrives (5 s at most). */
  async function firstEvent(res: Response, name: string): Promise<unknown> {
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const deadline = Date.now() + 5000;
    try {
      while (Date.now() < deadline) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        const block = text.split('\n\n').find((b) => b.split('\n').includes(`event: ${name}`));
        if (block) return JSON.parse(block.split('\n').find((l) => l.startsWith('data: '))!.slice(6));
      }
    } finally {
      await reader.cancel();
    }
    throw new Error(`no ${name} event in ${JSON.stringify(text)}`);
  }

  it("streams each trade as the Trade record GET /api/trades lists, tx_hash included", async () => {
    const w = await trader('20');
    const m = await market();
    const stream = await fetch(`${base()}/api/stream?markets=${m.id}`);
    assert.equal(stream.status, 200);
    const streamed = firstEvent(stream, 'trade');
    const placed = await send(w.viaKey, { method: 'POST', url: '/api/pool/trade', body: tradeBody(w.wallet, m.id, 'yes', 3.25) });
    assert.equal(placed.status, 200, JSON.stringify(placed.body));
    const listed = (await ok(call('GET', `/api/trades?market=${m.id}`))).data;
    assert.equal(listed.length, 1);
    assert.match(listed[0].tx_hash, /^0x[0-9a-f]{64}$/);
    assert.deepEqual(await streamed, listed[0]);
  });

  it('names a signature in the wrong encoding: the wallet signature without 0x, the HMAC with 0x or in base64', async () => {
    const w = await trader('5');
    const m = await market();
    const body = JSON.stringify(tradeBody(w.wallet, m.id, 'yes', 1));
    const digest = createHash('sha256').update(body).digest('hex');
    const walletSigned = async (ts: number) => {
      const message = `svc-auth v1 ${w.wallet.toLowerCase()} ${ts} POST /api/pool/trade ${digest}`;
      return { 'x-wallet-message': message, 'x-wallet-signature': await w.account.signMessage({ message }) };
    };
    // web3.py / eth_account with hexbytes 1.x: `signature.hex()` has no 0x.
    // One clock reading for both messages: read twice across a second's turn, now - 2 and now - 3
    // could be the same message, whose (deterministic) signature then verifies.
    const now = nowSeconds();
    const signed = await walletSigned(now - 2);
    const bare = await call('POST', '/api/pool/trade', JSON.parse(body), { ...signed, 'x-wallet-signature': signed['x-wallet-signature'].slice(2) });
    assert.deepEqual(bare, { status: 401, body: { success: false, error: 'Invalid signature: x-wallet-signature must start with 0x' } });
    // Garbage, and a signature of the right shape that does not verify, stay the plain Invalid signature.
    const other = await walletSigned(now - 3);
    for (const odd of ['0x1234', 'abc', other['x-wallet-signature'], other['x-wallet-signature'].slice(2, 130)]) {
      const r = await call('POST', '/api/pool/trade', JSON.parse(body), { ...signed, 'x-wallet-signature': odd });
      assert.deepEqual(r, { status: 401, body: { success: false, error: 'Invalid signature' } }, odd);
    }
    // None of these used up the signature: sent as made, it trades.
    assert.equal((await call('POST', '/api/pool/trade', JSON.parse(body), signed)).status, 200);

    const creds = (w.viaKey as { apiKey: { api_key: string; api_secret: string } }).apiKey;
    const h = hmacHeaders(creds, { method: 'POST', path: '/api/pool/trade', body, timestamp: nowSeconds() - 4 });
    const hex = h['x-api-signature']!;
    const base64 = Buffer.from(hex, 'hex').toString('base64');
    const named: [string, string][] = [
      ['0x' + hex, 'Invalid signature: x-api-signature must be hex without 0x'],
      ['0x' + hex.toUpperCase(), 'Invalid signature: x-api-signature must be hex without 0x'],
      [base64, 'Invalid signature: x-api-signature must be lower-case hex, not base64'],
      [Buffer.from(hex, 'hex').toString('base64url'), 'Invalid signature: x-api-signature must be lower-case hex, not base64'],
      [base64.slice(0, 43), 'Invalid signature: x-api-signature must be lower-case hex, not base64'],
      // Upper-case hex keeps its own words (third audit); garbage and a wrong digest are Invalid signature.
      [hex.toUpperCase(), 'Invalid signature: x-api-signature must be lower-case hex'],
      [hex.slice(0, 63), 'Invalid signature'],
      ['0x' + hex.slice(2), 'Invalid signature'],
      ['0'.repeat(64), 'Invalid signature'],
    ];
    for (const [odd, error] of named) {
      assert.deepEqual(await call('POST', '/api/pool/trade', JSON.parse(body), { ...h, 'x-api-signature': odd }), { status: 401, body: { success: false, error } }, odd);
    }
    assert.equal((await call('POST', '/api/pool/trade', JSON.parse(body), h)).status, 200);
    assert.equal((await ok(call('GET', `/api/pool/balance/${w.wallet}`))).data.balance, 3);
  });

  it('names a timestamp in milliseconds or with a fraction (Date.now(), str(time.time())), still 401 Timestamp out of range', async () => {
    const w = await trader('5');
    const m = await market();
    const body = JSON.stringify(tradeBody(w.wallet, m.id, 'no', 1));
    const digest = createHash('sha256').update(body).digest('hex');
    const creds = (w.viaKey as { apiKey: { api_key: string; api_secret: string } }).apiKey;
    const viaKey = (ts: string) => {
      const h = hmacHeaders(creds, { method: 'POST', path: '/api/pool/trade', body, timestamp: 0 });
      // Signed over the timestamp exactly as sent, as the contract says.
      const signature = createHmac('sha256', Buffer.from(creds.api_secret, 'utf8')).update(`${ts}POST/api/pool/trade${body}`).digest('hex');
      return call('POST', '/api/pool/trade', JSON.parse(body), { ...h, 'x-api-timestamp': ts, 'x-api-signature': signature });
    };
    const viaWallet = async (ts: string) => {
      const message = `svc-auth v1 ${w.wallet.toLowerCase()} ${ts} POST /api/pool/trade ${digest}`;
      return call('POST', '/api/pool/trade', JSON.parse(body), { 'x-wallet-message': message, 'x-wallet-signature': await w.account.signMessage({ message }) });
    };
    const refused = (error: string) => ({ status: 401, body: { success: false, error } });
    const ms = String(Date.now() - 1500);
    const fraction = `${nowSeconds() - 2}.${String(Date.now() % 1000).padStart(3, '0')}`;
    assert.deepEqual(await viaKey(ms), refused('Timestamp out of range: x-api-timestamp must be Unix seconds, not milliseconds'));
    assert.deepEqual(await viaKey(fraction), refused('Timestamp out of range: x-api-timestamp must be whole Unix seconds'));
    assert.deepEqual(await viaWallet(ms), refused('Timestamp out of range: the timestamp in x-wallet-message must be Unix seconds, not milliseconds'));
    assert.deepEqual(await viaWallet(fraction), refused('Timestamp out of range: the timestamp in x-wallet-message must be whole Unix seconds'));
    // Milliseconds or seconds far from now, and words, stay the plain refusals of before.
    assert.deepEqual(await viaKey(String(Date.now() - 3_600_000)), refused('Timestamp out of range'));
    assert.deepEqual(await viaKey(`${nowSeconds() - 3600}.5`), refused('Timestamp out of range'));
    assert.deepEqual(await viaKey('yesterday'), refused('Timestamp out of range'));
    assert.deepEqual(await viaWallet(String(Date.now() - 3_600_000)), refused('Invalid signature'));
    // Whole seconds trade; nothing moved before.
    assert.equal((await viaKey(String(nowSeconds() - 3))).status, 200);
    assert.equal((await ok(call('GET', `/api/pool/balance/${w.wallet}`))).data.balance, 4);
  });

  it('lets one of a trade and a withdrawal racing for the same balance through, never both (checked, not a finding)', async () => {
    const m = await market();
    for (let round = 0; round < 3; round++) {
      const w = await trader('10');
      const [trade, withdrawal] = await Promise.all([
        send(w.viaKey, { method: 'POST', url: '/api/pool/trade', body: tradeBody(w.wallet, m.id, 'yes', 10) }),
        send(w.viaWallet, { method: 'POST', url: '/api/pool/withdraw', body: { wallet_addr: w.wallet, amount: 10 } }),
      ]);
      assert.deepEqual([trade.status, withdrawal.status].sort(), [200, 400], JSON.stringify([trade.body, withdrawal.body]));
      const refused = trade.status === 400 ? trade : withdrawal;
      assert.deepEqual(refused.body, { success: false, error: 'Insufficient balance' });
      const balance = (await ok(call('GET', `/api/pool/balance/${w.wallet}`))).data;
      assert.deepEqual([balance.balance, balance.locked, balance.available], trade.status === 200 ? [0, 0, 0] : [10, 10, 0]);
    }
  });

  it('never leaves a resolved event with an open market: a market created in an event while its last market settles', async () => {
    const { admin } = marketOverSocket(base);
    const event = await ok(admin('POST', '/admin/events', { title: 'Audit8 race', category: 'audit8' }), 201);
    const last = await market({ event_id: event.id });
    const clock = { now: () => Date.now() };
    // The operator resolves the event's last market just after the create has read the event
    // (still active) and before it writes the market: the window of two admin calls at once.
    // The settlement is started, not awaited, in the read's result: the read still holds its
    // connection then, and the settlement's transaction is queued ahead of the create's write.
    let settled: Promise<unknown> | null = null;
    const settleAfterEventRead: KyselyPlugin = {
      transformQuery: (a) => a.node,
      transformResult: async (a) => {
        const row = a.result.rows[0] as { status?: unknown; category?: unknown } | undefined;
        if (!settled && row?.status === 'active' && row.category === 'audit8') settled = resolveMarket(app().deps.db, clock, last.id, 'yes');
        return a.result;
      },
    };
    const late = { title: 'Audit8 late', market_type: 'yesno' as const, event_id: event.id, end_date: new Date(Date.now() + 86_400_000).toISOString() };
    // Either may win: on PGlite (one transaction at a time) the settlement, queued first, commits
    // first and the create must be refused; on a server the create's insert can take the event's
    // row first, and the settlement then counts the new market and leaves the event open.
    const created = await createMarket(app().deps.db.withPlugin(settleAfterEventRead), clock, late).then(
      (row) => row,
      (e: unknown) => {
        assert.ok(e instanceof HttpError);
        assert.deepEqual([e.status, e.message], [400, `invalid event_id: event ${event.id} is resolved`]);
        return null;
      },
    );
    assert.ok(settled, 'the settlement ran inside the create');
    await settled;
    const shown = (await ok(call('GET', `/api/events/${event.id}`))).data;
    const statuses = shown.markets.map((m: { id: number; status: string }) => [m.id, m.status]);
    if (created === null) assert.deepEqual([shown.status, shown.markets_count, statuses], ['resolved', 1, [[last.id, 'resolved']]]);
    else assert.deepEqual([shown.status, shown.markets_count, [...statuses].sort()], ['active', 2, [[last.id, 'resolved'], [created.id, 'active']].sort()]);
    // An event still open takes markets as before.
    const open = await ok(admin('POST', '/admin/events', { title: 'Audit8 open', category: 'audit8b' }), 201);
    assert.equal((await createMarket(app().deps.db, clock, { ...late, event_id: open.id })).event_id, open.id);
  });
});
