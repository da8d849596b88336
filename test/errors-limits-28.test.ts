import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { startGateway, type Gateway } from './helpers/gateway.ts';
import { createTestAccount } from './helpers/inference.ts';
import { manualClock } from './helpers/market.ts';
import { sdkFailure } from './helpers/sdk-failure.ts';
import { nowSeconds, signedRequest, tradeBody, type ApiKeyCredentials, type MarketSigner } from './helpers/market-client.ts';

/**
 * Every documented error, limit and authentication rule of the two API documents and the
 * contract, checked over real HTTP against a listening service: the inference surface with the
 * official SDKs (their error class, `.status`, `.error`), the market with fetch
 * (docs/api-decisions.md, "Errors and limits: session 28 audit").
 */

const BODY_LIMIT = 4096;

/** A raw HTTP/1.1 exchange on a fresh socket: what the server wrote before closing. */
function rawExchange(url: string, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(Number(new URL(url).port), '127.0.0.1');
    let out = '';
    s.on('data', (d) => void (out += d.toString('latin1')));
    s.on('close', () => resolve(out));
    s.on('error', reject);
    s.write(text);
  });
}

/** Status and JSON body of a raw answer. */
function parseRaw(answer: string): { status: number; body: unknown } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
  return { status, body: JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) };
}

/** A chat body of exactly `bytes` bytes of JSON. */
function chatBodyOfSize(bytes: number): string {
  const empty = JSON.stringify({ model: 'svc-fast', max_tokens: 5, messages: [{ role: 'user', content: '' }] });
  const body = JSON.stringify({ model: 'svc-fast', max_tokens: 5, messages: [{ role: 'user', content: 'x'.repeat(bytes - empty.length) }] });
  assert.equal(Buffer.byteLength(body), bytes);
  return body;
}

describe('errors and limits (session 28)', () => {
  describe('inference', () => {
    let g: Gateway;
    before(async () => {
      g = await startGateway({ env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '3', RATE_LIMIT_IMAGES_PER_MINUTE: '2', BODY_LIMIT_BYTES: String(BODY_LIMIT) } });
    });
    after(() => g.close());

    const hi = [{ role: 'user' as const, content: 'hi' }];
    const openai = (key: string) => new OpenAI({ apiKey: key, baseURL: `${g.t.url}/v1`, maxRetries: 0 });
    const anthropic = (key: string) => new Anthropic({ apiKey: key, baseURL: `${g.t.url}/inference`, maxRetries: 0 });

    const openaiFailure = (call: () => Promise<unknown>) => sdkFailure(OpenAI.APIError, call);
    const anthropicFailure = (call: () => Promise<unknown>) => sdkFailure(Anthropic.APIError, call);
    const post = (path: string, headers: Record<string, string>, body: string) => fetch(`${g.t.url}${path}`, { method: 'POST', headers, body });

    describe('authentication: 401 unauthorized, 403 unverified', () => {
      it('a missing, unknown, revoked or non-Bearer key is the SDK\'s AuthenticationError with `unauthorized`', async () => {
        const acct = await createTestAccount(g.t, { credits: 10 });
        assert.equal((await openai(acct.key).models.list()).data.length > 0, true, 'the key works before it is revoked');
        const revoked = await g.t.app.inject({ method: 'DELETE', url: `/admin/keys/${acct.keyId}`, headers: g.t.admin });
        assert.equal(revoked.statusCode, 200);
        for (const key of ['', 'svk_unknown', acct.key]) {
          const e = await openaiFailure(() => openai(key).chat.completions.create({ model: 'svc-fast', messages: hi }));
          assert.ok(e instanceof OpenAI.AuthenticationError, `${key}: ${e.constructor.name}`);
          assert.equal(e.status, 401);
          assert.equal(e.error, 'unauthorized');
          // The Anthropic SDK refuses to send without a key of its own; it meets the other two.
          if (key === '') continue;
          const m = await anthropicFailure(() => anthropic(key).messages.create({ model: 'svc-fast', max_tokens: 5, messages: hi }));
          assert.ok(m instanceof Anthropic.AuthenticationError && m.status === 401, `${key}: ${m.constructor.name}`);
          assert.deepEqual(m.error, { error: 'unauthorized' });
        }
        const live = await createTestAccount(g.t, { credits: 10 });
        for (const headers of [{ authorization: `Basic ${live.key}` }, { 'x-api-key': live.key }, { authorization: live.key }] as Record<string, string>[]) {
          const r = await fetch(`${g.t.url}/v1/models`, { headers });
          assert.deepEqual([r.status, await r.json()], [401, { error: 'unauthorized' }], JSON.stringify(headers));
        }
      });

      it('x-api-key is accepted on the messages routes only; anthropic-version is ignored', async () => {
        const acct = await createTestAccount(g.t, { credits: 10 });
        const r = await post('/inference/v1/messages', { 'x-api-key': acct.key, 'anthropic-version': '1999-01-01', 'content-type': 'application/json' }, JSON.stringify({ model: 'svc-fast', max_tokens: 5, messages: hi }));
        assert.equal(r.status, 200, await r.clone().text());
        const chat = await post('/v1/chat/completions', { 'x-api-key': acct.key, 'content-type': 'application/json' }, JSON.stringify({ model: 'svc-fast', messages: hi }));
        assert.deepEqual([chat.status, await chat.json()], [401, { error: 'unauthorized' }]);
      });

      it('an unverified account is the SDKs\' PermissionDeniedError 403 `please verify your email first`, before the body is read', async () => {
        const acct = await createTestAccount(g.t, { credits: 10, verified: false });
        const e = await openaiFailure(() => openai(acct.key).chat.completions.create({ model: 'svc-fast', messages: hi }));
        assert.ok(e instanceof OpenAI.PermissionDeniedError && e.status === 403, e.constructor.name);
        assert.equal(e.error, 'please verify your email first');
        const m = await anthropicFailure(() => anthropic(acct.key).messages.create({ model: 'svc-fast', max_tokens: 5, messages: hi }));
        assert.ok(m instanceof Anthropic.PermissionDeniedError && m.status === 403, m.constructor.name);
        assert.deepEqual(m.error, { error: 'please verify your email first' });
        const malformed = await post('/v1/chat/completions', { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' }, '{');
        assert.deepEqual([malformed.status, await malformed.json()], [403, { error: 'please verify your email first' }]);
      });

      it('401 comes before 413: an oversized body without a key is unauthorized', async () => {
        const r = await post('/v1/chat/completions', { 'content-type': 'application/json' }, 'x'.repeat(BODY_LIMIT * 2));
        assert.deepEqual([r.status, await r.json()], [401, { error: 'unauthorized' }]);
      });
    });

    describe('402 and the statuses the contract adds', () => {
      it('no credits is 402 with the documented message; an unknown model is 404 before it', async () => {
        const acct = await createTestAccount(g.t, {});
        const e = await openaiFailure(() => openai(acct.key).chat.completions.create({ model: 'svc-fast', messages: hi }));
        assert.equal(e.status, 402);
        assert.equal(e.error, 'out of credits - please top up at the dashboard');
        const unknown = await openaiFailure(() => openai(acct.key).chat.completions.create({ model: 'svc-nope', messages: hi }));
        assert.ok(unknown instanceof OpenAI.NotFoundError, unknown.constructor.name);
        assert.equal(unknown.error, 'model not found: svc-nope');
        const wrong = await openaiFailure(() => openai(acct.key).embeddings.create({ model: 'svc-fast', input: 'x' }));
        assert.ok(wrong instanceof OpenAI.BadRequestError, wrong.constructor.name);
        assert.equal(wrong.error, 'model svc-fast does not support /v1/embeddings');
      });
    });

    describe('rate limits: 60 (here 3) per minute per user, images 10 (here 2)', () => {
      it('the third request in the window passes, the fourth is the SDK\'s RateLimitError with retry-after and the documented message', async () => {
        const acct = await createTestAccount(g.t, { credits: 100 });
        const client = openai(acct.key);
        for (let i = 0; i < 3; i++) {
          const { response } = await client.chat.completions.create({ model: 'svc-fast', messages: hi }).withResponse();
          assert.equal(response.headers.get('x-ratelimit-limit-requests'), '3');
          assert.equal(response.headers.get('x-ratelimit-remaining-requests'), String(2 - i));
          assert.match(response.headers.get('x-ratelimit-reset-requests') ?? '', /^\d+s$/);
        }
        const e = await openaiFailure(() => client.chat.completions.create({ model: 'svc-fast', messages: hi }));
        assert.ok(e instanceof OpenAI.RateLimitError && e.status === 429, e.constructor.name);
        assert.equal(e.error, 'rate limit exceeded — try again in a minute');
        const retry = Number(e.headers?.get('retry-after'));
        assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60, `retry-after ${retry}`);
        assert.equal(e.headers?.get('x-ratelimit-remaining-requests'), '0');
        const m = await anthropicFailure(() => anthropic(acct.key).messages.create({ model: 'svc-fast', max_tokens: 5, messages: hi }));
        assert.ok(m instanceof Anthropic.RateLimitError, m.constructor.name);
        assert.deepEqual(m.error, { error: 'rate limit exceeded — try again in a minute' });
      });

      it('the limit is the user\'s: a second key of the account shares it; 429 comes before a malformed body', async () => {
        const acct = await createTestAccount(g.t, { credits: 100 });
        for (let i = 0; i < 3; i++) await openai(acct.key).embeddings.create({ model: 'svc-embed', input: 'x' });
        const k = await g.t.app.inject({ method: 'POST', url: `/admin/accounts/${acct.id}/keys`, headers: g.t.admin, payload: {} });
        const r = await post('/v1/embeddings', { authorization: `Bearer ${k.json().key}`, 'content-type': 'application/json' }, '{');
        assert.deepEqual([r.status, await r.json()], [429, { error: 'rate limit exceeded — try again in a minute' }]);
        assert.ok(Number(r.headers.get('retry-after')) >= 1);
      });

      it('image generation has its own limit: the second passes, the third is 429', async () => {
        const acct = await createTestAccount(g.t, { credits: 1000 });
        const client = openai(acct.key);
        for (let i = 0; i < 2; i++) await client.images.generate({ model: 'svc-image', prompt: 'a cat' });
        const e = await openaiFailure(() => client.images.generate({ model: 'svc-image', prompt: 'a cat' }));
        assert.ok(e instanceof OpenAI.RateLimitError, e.constructor.name);
        assert.equal(e.error, 'rate limit exceeded — try again in a minute');
        await client.chat.completions.create({ model: 'svc-fast', messages: hi });
      });
    });

    describe('bodies', () => {
      it('a body of exactly BODY_LIMIT_BYTES is served; one byte more is 413 `request body too large` in the documented shape', async () => {
        const acct = await createTestAccount(g.t, { credits: 100 });
        const headers = { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' };
        const at = await post('/v1/chat/completions', headers, chatBodyOfSize(BODY_LIMIT));
        assert.equal(at.status, 200, await at.clone().text());
        const over = await post('/v1/chat/completions', headers, chatBodyOfSize(BODY_LIMIT + 1));
        assert.deepEqual([over.status, await over.json()], [413, { error: 'request body too large' }]);
        // The SDKs' calls from another account: the limit is 3 a minute per user.
        const sdkUser = await createTestAccount(g.t, { credits: 100 });
        const big = [{ role: 'user' as const, content: 'x'.repeat(BODY_LIMIT) }];
        const e = await openaiFailure(() => openai(sdkUser.key).chat.completions.create({ model: 'svc-fast', messages: big }));
        assert.equal(e.status, 413);
        assert.equal(e.error, 'request body too large');
        const m = await anthropicFailure(() => anthropic(sdkUser.key).messages.create({ model: 'svc-fast', max_tokens: 5, messages: big }));
        assert.ok(m instanceof Anthropic.ContentTooLargeError, m.constructor.name);
        assert.deepEqual(m.error, { error: 'request body too large' });
      });

      it('malformed JSON is 400, another content type 415, text/plain read as text 400, each in the one shape', async () => {
        const acct = await createTestAccount(g.t, { credits: 100 });
        const auth = { authorization: `Bearer ${acct.key}` };
        const cases: [Record<string, string>, string, number, string][] = [
          [{ 'content-type': 'application/json' }, '{"model":', 400, 'malformed JSON body'],
          [{ 'content-type': 'application/xml' }, '<model/>', 415, 'unsupported content type; send application/json'],
          [{ 'content-type': 'text/plain' }, '{}', 400, 'body: must be a JSON object'],
        ];
        for (const [headers, body, status, error] of cases) {
          const r = await post('/v1/completions', { ...auth, ...headers }, body);
          assert.deepEqual([r.status, await r.json()], [status, { error }], headers['content-type']);
        }
      });
    });

    describe('routes and versions', () => {
      it('an unknown route, another version and a method a route does not take are 404 in the `{"error"}` shape, key or none', async () => {
        const acct = await createTestAccount(g.t, { credits: 10 });
        const cases: [string, string][] = [['GET', '/v1/nope'], ['GET', '/v2/models'], ['GET', '/v1/chat/completions'], ['DELETE', '/v1/models'], ['GET', '/inference/v1/nope']];
        for (const [method, path] of cases) {
          for (const headers of [{}, { authorization: `Bearer ${acct.key}` }] as Record<string, string>[]) {
            const r = await fetch(`${g.t.url}${path}`, { method, headers });
            assert.deepEqual([r.status, await r.json()], [404, { error: `not found: ${method} ${path}` }], `${method} ${path}`);
          }
        }
        const e = await openaiFailure(() => openai(acct.key).get('/nope'));
        assert.ok(e instanceof OpenAI.NotFoundError, e.constructor.name);
        assert.equal(e.error, 'not found: GET /v1/nope');
      });

      it('an unknown route is 404 whatever the body: malformed, empty, oversized or of another type', async () => {
        const acct = await createTestAccount(g.t, { credits: 10 });
        const json = { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' };
        const cases: [string, string, Record<string, string>, string | undefined][] = [
          ['POST', '/v1/nope', json, '{'],
          ['PUT', '/v1/models', json, undefined],
          ['PUT', '/v1/chat/completions', json, '{"model":'],
          ['POST', '/v1/nope', json, 'x'.repeat(BODY_LIMIT * 2)],
          ['POST', '/v1/nope', { ...json, 'content-type': 'application/xml' }, '<a/>'],
        ];
        for (const [method, path, headers, body] of cases) {
          const r = await fetch(`${g.t.url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
          assert.deepEqual([r.status, await r.json()], [404, { error: `not found: ${method} ${path}` }], `${method} ${path} ${body?.slice(0, 10)}`);
        }
      });
    });

    describe('errors before any route: headers too large, a malformed request', () => {
      it('headers over the server\'s limit are 431 in the `{"error"}` shape, not Fastify\'s', async () => {
        const acct = await createTestAccount(g.t, { credits: 10 });
        const r = await fetch(`${g.t.url}/v1/models`, { headers: { authorization: `Bearer ${acct.key}`, 'x-pad': 'x'.repeat(20_000) } });
        assert.deepEqual([r.status, await r.json()], [431, { error: 'request headers too large' }]);
      });

      it('a request HTTP cannot parse is 400 `malformed HTTP request` in the `{"error"}` shape', async () => {
        const answer = parseRaw(await rawExchange(g.t.url, 'GET /v1/models HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'));
        assert.deepEqual(answer, { status: 400, body: { error: 'malformed HTTP request' } });
        const garbage = parseRaw(await rawExchange(g.t.url, 'GARBAGE\r\n\r\n'));
        assert.deepEqual(garbage, { status: 400, body: { error: 'malformed HTTP request' } });
      });
    });
  });

  describe('market', () => {
    let t: TestApp;
    const clock = manualClock(Date.now());
    let marketId: number;
    let pendingId: number;
    let threewayId: number;
    let wallet: string;
    let key: ApiKeyCredentials;
    let signer: MarketSigner;
    let ip = 0;
    /** Each call from an address of its own, so only the rate-limit test meets the limit. */
    const from = (address = `10.0.${Math.floor(++ip / 250)}.${(ip % 250) + 1}`) => ({ 'x-forwarded-for': address });

    const admin = async (method: string, url: string, body?: unknown) => {
      const r = await t.app.inject({ method: method as 'POST', url, headers: t.admin, ...(body === undefined ? {} : { payload: body as object }) });
      assert.ok(r.statusCode < 300, `${url}: ${r.statusCode} ${r.body}`);
      return r.json();
    };
    const read = async (path: string, headers: Record<string, string> = from()) => {
      const r = await fetch(`${t.url}${path}`, { headers });
      return { status: r.status, body: (await r.json()) as { success: boolean; error?: string; data?: unknown } };
    };
    async function trade(body: unknown, opts: { signer?: MarketSigner | null; timestamp?: number } = {}) {
      const req = await signedRequest(opts.signer === undefined ? signer : opts.signer, {
        method: 'POST', url: '/api/pool/trade', body, timestamp: opts.timestamp ?? nowSeconds(clock.now()),
      });
      const r = await fetch(`${t.url}${req.url}`, { method: req.method, headers: { ...req.headers, ...from() }, body: req.payload });
      return { status: r.status, body: await r.json() };
    }
    const failure = (status: number, error: string) => ({ status, body: { success: false, error } });

    before(async () => {
      t = await startTestApp({ clock, env: { RATE_LIMIT_MARKET_PER_MINUTE: '5', TRUST_PROXY: '1', BODY_LIMIT_BYTES: String(BODY_LIMIT) } });
      await t.listen();
      const end = new Date(clock.now() + 30 * 86_400_000).toISOString();
      marketId = (await admin('POST', '/admin/markets', { title: 'Errors audit market', category: 'test', market_type: 'yesno', status: 'active', end_date: end })).id;
      pendingId = (await admin('POST', '/admin/markets', { title: 'Pending audit market', category: 'test', market_type: 'yesno', status: 'pending', end_date: end })).id;
      threewayId = (await admin('POST', '/admin/markets', { title: 'Three-way audit market', category: 'test', market_type: 'threeway', status: 'active', end_date: end })).id;
      const account = privateKeyToAccount(generatePrivateKey());
      wallet = account.address;
      await admin('POST', `/admin/wallets/${wallet}/deposit`, { amount: '10' });
      key = await admin('POST', `/admin/wallets/${wallet}/api-keys`);
      signer = { apiKey: key };
    });
    after(() => t.close());

    it('every documented trade error, with its status and exact message', async () => {
      assert.deepEqual(await trade(tradeBody(wallet, marketId, 'yes', 11)), failure(400, 'Insufficient balance'));
      assert.deepEqual(await trade(tradeBody(wallet, pendingId, 'yes', 1)), failure(400, 'Market not active'));
      assert.deepEqual(await trade(tradeBody(wallet, marketId, 'draw', 1)), failure(400, 'Invalid side'));
      assert.deepEqual(await trade(tradeBody(wallet, marketId, 'maybe', 1)), failure(400, 'Invalid side'));
      assert.deepEqual(await trade(tradeBody(wallet, marketId, 'yes', 0.999999)), failure(400, 'Minimum trade is 1 USDC'));
      assert.deepEqual(await trade(tradeBody(wallet, marketId, 'yes', 1.0000001)), failure(400, 'amount must have at most 6 decimals'));
      assert.deepEqual(await trade(tradeBody(wallet, marketId, 'yes', 1), { signer: null }), failure(401, 'Signature required'));
      const other = privateKeyToAccount(generatePrivateKey()).address;
      assert.deepEqual(await trade(tradeBody(other, marketId, 'yes', 1)), failure(403, 'API key wallet mismatch'));
      assert.deepEqual(await trade(tradeBody(wallet, 2_147_483_647, 'yes', 1)), failure(404, 'Market not found'));
      // At the bounds: 1.00 USDC exactly, and draw on a three-way market.
      assert.equal((await trade(tradeBody(wallet, marketId, 'yes', 1))).status, 200);
      assert.equal((await trade(tradeBody(wallet, threewayId, 'draw', 1))).status, 200);
    });

    it('signatures: one header of three is 401 Signature required; the timestamp window is 30 s each way; a replay is refused', async () => {
      const req = await signedRequest(signer, { method: 'POST', url: '/api/pool/trade', body: tradeBody(wallet, marketId, 'yes', 1), timestamp: nowSeconds(clock.now()) });
      const partial = await fetch(`${t.url}/api/pool/trade`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key.api_key, ...from() }, body: req.payload });
      assert.deepEqual({ status: partial.status, body: await partial.json() }, failure(401, 'Signature required'));
      const now = nowSeconds(clock.now());
      assert.equal((await trade(tradeBody(wallet, marketId, 'yes', 1), { timestamp: now - 30 })).status, 200);
      assert.equal((await trade(tradeBody(wallet, marketId, 'yes', 1), { timestamp: now + 30 })).status, 200);
      assert.deepEqual(await trade(tradeBody(wallet, marketId, 'yes', 1), { timestamp: now - 31 }), failure(401, 'Timestamp out of range'));
      assert.deepEqual(await trade(tradeBody(wallet, marketId, 'yes', 1), { timestamp: now + 31 }), failure(401, 'Timestamp out of range'));
      const once = await signedRequest(signer, { method: 'POST', url: '/api/pool/trade', body: tradeBody(wallet, marketId, 'yes', 1), timestamp: now - 2 });
      const send = () => fetch(`${t.url}/api/pool/trade`, { method: 'POST', headers: { ...once.headers, ...from() }, body: once.payload });
      assert.equal((await send()).status, 200);
      const again = await send();
      assert.deepEqual({ status: again.status, body: await again.json() }, failure(401, 'Signature already used'));
    });

    it('list limits at and one past their bounds', async () => {
      const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1).join(',');
      assert.equal((await read(`/api/markets/prices?ids=${ids(50)}`)).status, 200);
      assert.deepEqual(await read(`/api/markets/prices?ids=${ids(51)}`), failure(400, 'Invalid ids: at most 50 ids'));
      for (const path of ['/api/markets', '/api/events', '/api/trades', `/api/pool/ledger/${wallet}`, '/api/users/leaderboard']) {
        assert.equal((await read(`${path}?limit=100`)).status, 200, path);
        assert.deepEqual(await read(`${path}?limit=101`), failure(400, 'Invalid limit: must be between 1 and 100'), path);
        assert.deepEqual(await read(`${path}?limit=0`), failure(400, 'Invalid limit: must be between 1 and 100'), path);
      }
      assert.equal((await read('/api/markets?page=1')).status, 200);
      assert.deepEqual(await read('/api/markets?page=0'), failure(400, 'Invalid page: must be between 1 and 1000000'));
      const list = await read('/api/markets');
      assert.equal((list.body as { limit?: number }).limit, 20, 'limit defaults to 20');
      assert.equal((await read('/api/search?q=au')).status, 200);
      assert.deepEqual(await read('/api/search?q=a'), failure(400, 'Invalid q: must be between 2 and 200 characters'));
    });

    it('bodies and routes: 413, malformed JSON, unknown routes and methods, all in the market envelope', async () => {
      const json = { 'content-type': 'application/json' };
      const over = await fetch(`${t.url}/api/pool/estimate`, { method: 'POST', headers: { ...json, ...from() }, body: JSON.stringify({ pad: 'x'.repeat(BODY_LIMIT) }) });
      assert.deepEqual({ status: over.status, body: await over.json() }, failure(413, 'request body too large'));
      const bad = await fetch(`${t.url}/api/pool/estimate`, { method: 'POST', headers: { ...json, ...from() }, body: '{"market_id":' });
      assert.deepEqual({ status: bad.status, body: await bad.json() }, failure(400, 'malformed JSON body'));
      for (const [method, path, body] of [['GET', '/api/nope', undefined], ['GET', '/api/pool/trade', undefined], ['DELETE', '/api/markets', undefined], ['POST', '/api/markets', '{'], ['PUT', '/api/nope', '']] as const) {
        const r = await fetch(`${t.url}${path}`, { method, headers: { ...json, ...from() }, ...(body === undefined ? {} : { body }) });
        assert.deepEqual({ status: r.status, body: await r.json() }, failure(404, 'Not found'), `${method} ${path}`);
      }
    });

    it('errors before any route are in the market envelope on /api', async () => {
      const r = await fetch(`${t.url}/api/markets`, { headers: { 'x-pad': 'x'.repeat(20_000) } });
      assert.deepEqual({ status: r.status, body: await r.json() }, failure(431, 'request headers too large'));
      const answer = parseRaw(await rawExchange(t.url, 'GET /api/markets HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'));
      assert.deepEqual(answer, failure(400, 'malformed HTTP request'));
    });

    it('200 (here 5) requests per minute per address: the fifth passes, the sixth is 429 with retry-after; another address is not limited', async () => {
      const address = from();
      for (let i = 0; i < 5; i++) {
        const r = await read('/api/markets?limit=1', address);
        assert.equal(r.status, 200);
      }
      const r = await fetch(`${t.url}/api/markets`, { headers: address });
      assert.deepEqual({ status: r.status, body: await r.json() }, failure(429, 'Rate limit exceeded'));
      const retry = Number(r.headers.get('retry-after'));
      assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60, `retry-after ${retry}`);
      assert.equal(r.headers.get('x-ratelimit-limit-requests'), '5');
      assert.equal(r.headers.get('x-ratelimit-remaining-requests'), '0');
      assert.equal((await read('/api/markets?limit=1')).status, 200);
    });
  });
});
