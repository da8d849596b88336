import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { marketAuditSuite } from './helpers/market-socket.ts';

/**
 * The ninth audit of the market API against market-api.md (docs/api-decisions.md, "Market API:
 * ninth audit"), over a real socket, as a trader, a bot and an operator meet it.
 */
describe('market API against market-api.md (ninth audit, over HTTP)', () => {
  const { app, base, call, admin, ok, send, endIn, market: marketIn } = marketAuditSuite();
  const market = (fields: Record<string, unknown> = {}) => marketIn('audit9', fields);

  it('answers HEAD /api/stream with the stream headers and no body, instead of never answering', async () => {
    const m = await market();
    for (const path of [`/api/stream?markets=${m.id}`, '/api/stream']) {
      const res = await fetch(base() + path, { method: 'HEAD', signal: AbortSignal.timeout(5000) });
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8', path);
      assert.equal(res.headers.get('cache-control'), 'no-cache, no-transform', path);
      assert.equal(await res.text(), '', path);
    }
    // The GET's refusals hold for HEAD too (no body, the status says it).
    assert.equal((await fetch(`${base()}/api/stream?markets=999999`, { method: 'HEAD', signal: AbortSignal.timeout(5000) })).status, 404);
    assert.equal((await fetch(`${base()}/api/stream?markets=x`, { method: 'HEAD', signal: AbortSignal.timeout(5000) })).status, 400);
    // A HEAD holds no stream: as many as a client's stream limit and more still answer.
    for (let i = 0; i < 25; i++) {
      assert.equal((await fetch(`${base()}/api/stream`, { method: 'HEAD', signal: AbortSignal.timeout(5000) })).status, 200);
    }
    // GET still streams.
    const get = await fetch(`${base()}/api/stream?markets=${m.id}`, { signal: AbortSignal.timeout(5000) });
    assert.equal(get.status, 200);
    const reader = get.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    assert.match(first, /^retry: 2000\n/);
    await reader.cancel();
  });

  it('refuses to activate a pending market whose end_date has passed (it could never trade), and activates it once moved', async () => {
    const m = await market({ status: 'pending' });
    await ok(admin('PATCH', `/admin/markets/${m.id}`, { end_date: '2020-01-01T00:00:00Z' }));
    assert.deepEqual(await admin('POST', `/admin/markets/${m.id}/activate`), {
      status: 400,
      body: { error: 'Market has ended (end_date 2020-01-01T00:00:00.000Z): move end_date into the future before activating it' },
    });
    assert.equal((await ok(call('GET', `/api/markets/${m.id}`))).data.status, 'pending');
    await ok(admin('PATCH', `/admin/markets/${m.id}`, { end_date: endIn(2) }));
    assert.equal((await ok(admin('POST', `/admin/markets/${m.id}/activate`))).status, 'active');
    // Resolve and cancel still take an ended pending market (the operator closes it).
    const ended = await market({ status: 'pending' });
    await ok(admin('PATCH', `/admin/markets/${ended.id}`, { end_date: '2020-01-01T00:00:00Z' }));
    assert.equal((await ok(admin('POST', `/admin/markets/${ended.id}/cancel`))).status, 'cancelled');
  });

  it('never lets racing POST /api/keys pass the cap of 20 live keys per wallet together', async () => {
    const { generatePrivateKey, privateKeyToAccount } = await import('viem/accounts');
    const account = privateKeyToAccount(generatePrivateKey());
    // The operator's keys count toward the cap (the operator itself is not limited).
    for (let i = 0; i < 16; i++) await ok(admin('POST', `/admin/wallets/${account.address}/api-keys`), 201);
    const answers = await Promise.all(Array.from({ length: 8 }, () => send({ account }, { method: 'POST', url: '/api/keys' })));
    const statuses = answers.map((a) => a.status).sort();
    assert.deepEqual(statuses, [201, 201, 201, 201, 400, 400, 400, 400], JSON.stringify(answers.map((a) => a.body)));
    for (const a of answers.filter((x) => x.status === 400)) {
      assert.deepEqual(a.body, { success: false, error: 'Too many API keys (at most 20 live keys per wallet)' });
    }
    const live = await app().deps.db
      .selectFrom('market_api_keys')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('wallet', '=', account.address.toLowerCase())
      .where('revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
    assert.equal(Number(live.n), 20);
  });
});
