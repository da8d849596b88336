import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import OpenAI, { RateLimitError } from 'openai';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createTestAccount, mountInferenceProbes } from './helpers/inference.ts';

const RATE_LIMITED = 'rate limit exceeded — try again in a minute';

describe('inference rate limits: 60 a minute per account, 10 for images', () => {
  const apps: TestApp[] = [];
  after(async () => {
    for (const a of apps.reverse()) await a.close();
  });

  it('refuses the 61st request of a minute with 429, the headers on every answer', async () => {
    const t = await startTestApp({ beforeReady: mountInferenceProbes });
    apps.push(t);
    await t.listen();
    const acct = await createTestAccount(t);
    const openai = new OpenAI({ apiKey: acct.key, baseURL: t.url + '/v1', maxRetries: 0 });
    for (let i = 1; i <= 60; i++) {
      const { response } = await openai.post('/_probe/ping', { body: {} }).withResponse();
      assert.equal(response.status, 200, `request ${i}`);
      assert.equal(response.headers.get('x-ratelimit-limit-requests'), '60');
      assert.equal(response.headers.get('x-ratelimit-remaining-requests'), String(60 - i));
      assert.match(response.headers.get('x-ratelimit-reset-requests') ?? '', /^\d+s$/);
    }
    await assert.rejects(openai.post('/_probe/ping', { body: {} }), (e: unknown) => {
      assert.ok(e instanceof RateLimitError);
      assert.equal(e.status, 429);
      assert.equal(e.error, RATE_LIMITED);
      assert.equal(e.headers?.get('x-ratelimit-limit-requests'), '60');
      assert.equal(e.headers?.get('x-ratelimit-remaining-requests'), '0');
      assert.match(e.headers?.get('x-ratelimit-reset-requests') ?? '', /^\d+s$/);
      assert.ok(Number(e.headers?.get('retry-after')) >= 1);
      return true;
    });
    // The budget is the account's: a second key of the same account gets no fresh one.
    const k2 = await t.app.inject({ method: 'POST', url: `/admin/accounts/${acct.id}/keys`, headers: t.admin, payload: {} });
    const second = await t.app.inject({ method: 'POST', url: '/v1/_probe/ping', headers: { authorization: `Bearer ${k2.json().key}` } });
    assert.equal(second.statusCode, 429);
    // Another account has its own, and the catalog routes are not counted but show the budget.
    const other = await createTestAccount(t);
    const fresh = await t.app.inject({ method: 'POST', url: '/v1/_probe/ping', headers: { authorization: `Bearer ${other.key}` } });
    assert.equal(fresh.statusCode, 200);
    const models = await t.app.inject({ url: '/v1/models', headers: { authorization: `Bearer ${acct.key}` } });
    assert.equal(models.statusCode, 200);
    assert.equal(models.headers['x-ratelimit-remaining-requests'], '0');
  });

  it('counts images apart, 10 a minute', async () => {
    const t = await startTestApp({ beforeReady: mountInferenceProbes });
    apps.push(t);
    const acct = await createTestAccount(t);
    const auth = { authorization: `Bearer ${acct.key}` };
    for (let i = 1; i <= 10; i++) {
      const r = await t.app.inject({ method: 'POST', url: '/v1/_probe/images', headers: auth });
      assert.equal(r.statusCode, 200, `image ${i}`);
      assert.equal(r.headers['x-ratelimit-limit-requests'], '10');
    }
    const refused = await t.app.inject({ method: 'POST', url: '/v1/_probe/images', headers: auth });
    assert.equal(refused.statusCode, 429);
    assert.deepEqual(refused.json(), { error: RATE_LIMITED });
    const chat = await t.app.inject({ method: 'POST', url: '/v1/_probe/ping', headers: auth });
    assert.equal(chat.statusCode, 200, 'the inference budget is separate');
    assert.equal(chat.headers['x-ratelimit-remaining-requests'], '59');
  });

  it('checks the key and the email before the rate, and the rate before the body', async () => {
    const t = await startTestApp({ env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '1' }, beforeReady: mountInferenceProbes });
    apps.push(t);
    const acct = await createTestAccount(t, { credits: 1 });
    const auth = { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' };
    const bad = '{"model":';
    assert.equal((await t.app.inject({ method: 'POST', url: '/v1/_probe/chat', headers: { 'content-type': 'application/json' }, payload: bad })).statusCode, 401);
    const unverified = await createTestAccount(t, { verified: false });
    const r403 = await t.app.inject({ method: 'POST', url: '/v1/_probe/chat', headers: { ...auth, authorization: `Bearer ${unverified.key}` }, payload: bad });
    assert.equal(r403.statusCode, 403);
    const r400 = await t.app.inject({ method: 'POST', url: '/v1/_probe/chat', headers: auth, payload: bad });
    assert.equal(r400.statusCode, 400);
    assert.equal(r400.headers['x-ratelimit-remaining-requests'], '0', 'rate headers on error answers too');
    const r429 = await t.app.inject({ method: 'POST', url: '/v1/_probe/chat', headers: auth, payload: bad });
    assert.equal(r429.statusCode, 429);
  });

  it('shares the budget between two instances through Redis', { skip: !process.env.REDIS_URL && 'REDIS_URL not set' }, async () => {
    const prefix = `t${randomBytes(6).toString('hex')}`;
    const a = await startTestApp({ redisPrefix: prefix, beforeReady: mountInferenceProbes });
    apps.push(a);
    const b = await startTestApp({ redisPrefix: prefix, database: a.database, beforeReady: mountInferenceProbes });
    apps.push(b);
    for (const refusedBy of [a, b]) {
      const acct = await createTestAccount(a);
      const auth = { authorization: `Bearer ${acct.key}` };
      for (let i = 0; i < 60; i++) {
        const app = i % 2 === 0 ? a.app : b.app;
        const r = await app.inject({ method: 'POST', url: '/v1/_probe/ping', headers: auth });
        assert.equal(r.statusCode, 200, `request ${i + 1}`);
      }
      const r = await refusedBy.app.inject({ method: 'POST', url: '/v1/_probe/ping', headers: auth });
      assert.equal(r.statusCode, 429);
      assert.deepEqual(r.json(), { error: RATE_LIMITED });
      assert.ok(Number(r.headers['retry-after']) >= 1);
    }
  });

  it('admits exactly 60 of 150 concurrent requests spread over two instances, the rest 429', { skip: !process.env.REDIS_URL && 'REDIS_URL not set' }, async () => {
    const prefix = `t${randomBytes(6).toString('hex')}`;
    const a = await startTestApp({ redisPrefix: prefix, beforeReady: mountInferenceProbes });
    apps.push(a);
    const b = await startTestApp({ redisPrefix: prefix, database: a.database, beforeReady: mountInferenceProbes });
    apps.push(b);
    await a.listen();
    await b.listen();
    const acct = await createTestAccount(a);
    const clients = [a, b].map((t) => new OpenAI({ apiKey: acct.key, baseURL: t.url + '/v1', maxRetries: 0 }));
    const outcomes = await Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        clients[i % 2]!.post('/_probe/ping', { body: {} }).then(
          () => 'ok' as const,
          (e: unknown) => {
            assert.ok(e instanceof RateLimitError, String(e));
            assert.equal(e.error, RATE_LIMITED);
            assert.ok(Number(e.headers?.get('retry-after')) >= 1);
            assert.equal(e.headers?.get('x-ratelimit-remaining-requests'), '0');
            return 'limited' as const;
          },
        ),
      ),
    );
    // Every request is counted in Redis before it is admitted, so together the instances admit
    // no more than the limit; with more demand than budget on both, they spend all of it.
    assert.equal(outcomes.filter((o) => o === 'ok').length, 60);
    assert.equal(outcomes.filter((o) => o === 'limited').length, 90);
  });

  it('an instance that stops serving an account gives its unused reservation back', { skip: !process.env.REDIS_URL && 'REDIS_URL not set' }, async () => {
    const prefix = `t${randomBytes(6).toString('hex')}`;
    const a = await startTestApp({ redisPrefix: prefix, beforeReady: mountInferenceProbes });
    apps.push(a);
    const b = await startTestApp({ redisPrefix: prefix, database: a.database, beforeReady: mountInferenceProbes });
    apps.push(b);
    const acct = await createTestAccount(a);
    const ping = (t: TestApp) => t.app.inject({ method: 'POST', url: '/v1/_probe/ping', headers: { authorization: `Bearer ${acct.key}` } });
    assert.equal((await ping(a)).statusCode, 200);
    // a holds 6 of its first take of 7 (an eighth of 60): the documented shortfall for b.
    for (let i = 1; i <= 53; i++) assert.equal((await ping(b)).statusCode, 200, `request ${i} on b`);
    const early = await ping(b);
    assert.equal(early.statusCode, 429);
    assert.deepEqual(early.json(), { error: RATE_LIMITED });
    // Two sync periods without a request on a (the timer's work, run here by hand): the 6 go back.
    await a.deps.limiters.inference.sync();
    await a.deps.limiters.inference.sync();
    // b answers refusals from memory for a second; a third instance asks Redis at once.
    const c = await startTestApp({ redisPrefix: prefix, database: a.database, beforeReady: mountInferenceProbes });
    apps.push(c);
    for (let i = 1; i <= 6; i++) assert.equal((await ping(c)).statusCode, 200, `returned point ${i}`);
    assert.equal((await ping(c)).statusCode, 429);
  });
});
