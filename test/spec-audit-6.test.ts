import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from './helpers/app.ts';
import { startGateway, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';
import { marketOverSocket, startMarketOverSocket } from './helpers/market-socket.ts';

/**
 * Findings of a sixth audit, of the service against the contract that docs/api-decisions.md
 * records ("Contract: sixth audit"), over a real socket as a client meets it.
 */
describe('contract, sixth audit: the order of checks on the inference API', () => {
  let g: Gateway;
  let acct: TestAccount;

  before(async () => {
    g = await startGateway({ env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '2' } });
    acct = await createTestAccount(g.t, { credits: 1000 });
  });
  after(() => g.close());

  const latin1 = { 'content-type': 'application/json; charset=latin1' };
  const body = JSON.stringify({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }] });
  async function send(path: string, headers: Record<string, string>) {
    const r = await fetch(`${g.t.url}${path}`, { method: 'POST', headers, body });
    return { status: r.status, headers: r.headers, body: (await r.json()) as unknown };
  }

  it('a body in another charset is 401 without a key, 403 unverified and 429 over the limit before its 415', async () => {
    for (const base of ['/v1', '/inference/v1']) {
      assert.deepEqual((await send(`${base}/chat/completions`, latin1)).body, { error: 'unauthorized' });
      assert.equal((await send(`${base}/chat/completions`, { ...latin1, authorization: 'Bearer svk_nope' })).status, 401);
      assert.equal((await send(`${base}/messages`, { ...latin1, 'x-api-key': 'svk_nope' })).status, 401);
    }
    const unverified = await createTestAccount(g.t, { credits: 1000, verified: false });
    const r403 = await send('/v1/chat/completions', { ...latin1, authorization: `Bearer ${unverified.key}` });
    assert.deepEqual([r403.status, r403.body], [403, { error: 'please verify your email first' }]);

    // Within the limit: the 415, with the rate-limit headers of every answer, and the request counted.
    const auth = { authorization: `Bearer ${acct.key}` };
    const r415 = await send('/v1/chat/completions', { ...latin1, ...auth });
    assert.deepEqual([r415.status, r415.body], [415, { error: 'unsupported charset; send UTF-8' }]);
    assert.equal(r415.headers.get('x-ratelimit-limit-requests'), '2');
    assert.equal(r415.headers.get('x-ratelimit-remaining-requests'), '1');
    assert.match(r415.headers.get('x-ratelimit-reset-requests') ?? '', /^\d+s$/);
    assert.equal((await send('/v1/chat/completions', { ...latin1, ...auth })).status, 415);
    // Over the limit: 429 first.
    const r429 = await send('/inference/v1/chat/completions', { ...latin1, ...auth });
    assert.deepEqual([r429.status, r429.body], [429, { error: 'rate limit exceeded — try again in a minute' }]);
    assert.ok(r429.headers.get('retry-after'));
    assert.equal(g.openai.requests.length + g.anthropic.requests.length, 0);
  });
});

describe('contract, sixth audit: market parameters', () => {
  let t: TestApp;
  let base: string;

  before(async () => void ({ t, base } = await startMarketOverSocket()));
  after(() => t.close());

  const { call, admin, ok } = marketOverSocket(() => base);

  it('a parameter the pool ledger or a wallet\'s withdrawals does not take is a 400 naming it', async () => {
    const wallet = '0x' + 'Ab'.repeat(20);
    await ok(admin('POST', `/admin/wallets/${wallet}/deposit`, { amount: 5 }));
    for (const path of [`/api/pool/ledger/${wallet}`, `/api/pool/withdrawals/${wallet}`]) {
      for (const [query, name] of [['page=0', 'page'], ['page=2', 'page'], ['limit=5&offset=1', 'offset'], ['wallet=x', 'wallet']] as const) {
        assert.deepEqual(await call('GET', `${path}?${query}`), { status: 400, body: { success: false, error: `Unknown parameter: ${name}` } }, `${path}?${query}`);
      }
      // What the routes take is unchanged: `limit` 1..100, named when out of range.
      assert.deepEqual(await call('GET', `${path}?limit=0`), { status: 400, body: { success: false, error: 'Invalid limit: must be between 1 and 100' } });
      assert.equal((await call('GET', `${path}?limit=100`)).status, 200);
    }
    const ledger = await call('GET', `/api/pool/ledger/${wallet}?limit=1&type=deposit`);
    assert.equal(ledger.status, 200);
    assert.equal(ledger.body.count, 1);
  });
});
