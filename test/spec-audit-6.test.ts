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

describe('contract, sixth audit: retry-after on every 429 of the inference API', () => {
  let g: Gateway;
  let acct: TestAccount;

  before(async () => {
    g = await startGateway({ env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '10000' } });
    acct = await createTestAccount(g.t, { credits: 1000 });
  });
  after(() => g.close());

  async function post(path: string, body: unknown) {
    const r = await fetch(`${g.t.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: r.status, headers: r.headers, body: (await r.json()) as { error: string } };
  }
  const hi = [{ role: 'user', content: 'hi' }];

  it("an upstream's 429 reaches the client with retry-after: the upstream's, in whole seconds, or 1", async () => {
    for (const [headers, expected] of [[{ 'retry-after': '7' }, '7'], [{ 'retry-after-ms': '2500' }, '3'], [{}, '1']] as const) {
      g.openai.chat.enqueue({ error: { status: 429, message: 'Rate limit reached for requests', headers } });
      const chat = await post('/v1/chat/completions', { model: 'svc-fast', messages: hi });
      assert.equal(chat.status, 429, JSON.stringify(chat.body));
      assert.equal(typeof chat.body.error, 'string');
      assert.equal(chat.headers.get('retry-after'), expected, JSON.stringify(headers));
      // Its rate-limit headers are the account's, as on every answer.
      assert.equal(chat.headers.get('x-ratelimit-limit-requests'), '10000');
    }
    g.openai.chat.enqueue({ error: { status: 429, headers: { 'retry-after': '4' } } });
    const streamed = await post('/inference/v1/chat/completions', { model: 'svc-fast', messages: hi, stream: true });
    assert.deepEqual([streamed.status, streamed.headers.get('retry-after')], [429, '4']);
    // An Anthropic upstream's 429 (its rate_limit_error), on the messages route.
    g.anthropic.chat.enqueue({ error: { status: 429 } });
    const messages = await post('/v1/messages', { model: 'svc-vision', max_tokens: 5, messages: hi });
    assert.deepEqual([messages.status, messages.headers.get('retry-after')], [429, '1']);
  });

  it('other upstream failures carry no retry-after from this', async () => {
    g.openai.chat.enqueue({ error: { status: 400, headers: { 'retry-after': '7' } } });
    const r = await post('/v1/chat/completions', { model: 'svc-fast', messages: hi });
    assert.deepEqual([r.status, r.headers.get('retry-after')], [400, null]);
  });
});
