import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI, { AuthenticationError, PermissionDeniedError } from 'openai';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createTestAccount, manualClock, mountInferenceProbes } from './helpers/inference.ts';

const CHAT_MODELS = ['svc-shiplow', 'svc-fast', 'svc-vision', 'svc-pro', 'svc-ultra', 'svc-auto'];

const client = (t: TestApp, apiKey: string, base = '/v1') => new OpenAI({ apiKey, baseURL: t.url + base, maxRetries: 0 });

describe('inference keys and the catalog endpoints', () => {
  const clock = manualClock();
  let t: TestApp;
  before(async () => {
    // The last_used_at timer never fires within the file (300 s limit): the test flushes itself.
    t = await startTestApp({ clock, env: { OPENAI_API_KEY: 'sk-upstream-test', API_KEY_LAST_USED_FLUSH_MS: '3600000' }, beforeReady: mountInferenceProbes });
    await t.listen();
  });
  after(() => t.close());

  it('lists the chat brand ids only, in the OpenAI list shape, at /v1 and /inference/v1', async () => {
    const acct = await createTestAccount(t);
    for (const base of ['/v1', '/inference/v1']) {
      const ids: string[] = [];
      for await (const m of client(t, acct.key, base).models.list()) {
        assert.equal(m.object, 'model');
        assert.equal(m.owned_by, 'svc');
        assert.equal(typeof m.created, 'number');
        ids.push(m.id);
      }
      assert.deepEqual(ids, CHAT_MODELS);
    }
    const one = await client(t, acct.key).models.retrieve('svc-pro');
    assert.equal(one.id, 'svc-pro');
    await assert.rejects(client(t, acct.key).models.retrieve('svc-embed'), (e: unknown) => e instanceof OpenAI.NotFoundError);
  });

  it('describes every model with limits, endpoints, capabilities, prices in credits per 1K and availability', async () => {
    const acct = await createTestAccount(t);
    const r = await t.app.inject({ url: '/v1/available-models', headers: { authorization: `Bearer ${acct.key}` } });
    assert.equal(r.statusCode, 200);
    const body = r.json();
    assert.equal(body.object, 'list');
    const byId = new Map<string, Record<string, unknown>>(body.data.map((m: { id: string }) => [m.id, m]));
    assert.deepEqual([...byId.keys()], [...CHAT_MODELS, 'svc-embed', 'svc-rerank', 'svc-image']);
    assert.deepEqual(byId.get('svc-fast'), {
      id: 'svc-fast',
      object: 'model',
      type: 'chat',
      description: 'cheap single model, high-throughput coding',
      context_length: 1000000,
      max_output_tokens: 900000,
      context: 1000000,
      max_output: 900000,
      dimensions: null,
      endpoints: ['/v1/chat/completions', '/v1/completions', '/v1/responses', '/v1/messages'],
      capabilities: { vision: false, tools: true, json_output: true, streaming: true, reasoning: false },
      pricing: { input: 0.45, cached_input: 0.1125, output: 0.9, per_image: null },
      priced_as: null,
      available: true,
    });
    const auto = byId.get('svc-auto')!;
    assert.deepEqual([auto.pricing, auto.priced_as, auto.available], [
      { input: null, cached_input: null, output: null, per_image: null },
      ['svc-fast', 'svc-vision', 'svc-pro'],
      true,
    ], 'svc-auto is billed at the prices of the model it chooses');
    const embed = byId.get('svc-embed')!;
    assert.deepEqual(embed.pricing, { input: 0.2, cached_input: null, output: null, per_image: null });
    assert.deepEqual(embed.endpoints, ['/v1/embeddings']);
    assert.equal(embed.max_output_tokens, null);
    assert.equal(embed.dimensions, 1536);
    assert.equal(byId.get('svc-rerank')!.available, false, 'no rerank upstream configured');
    assert.deepEqual((byId.get('svc-image')!.pricing as object), { input: null, cached_input: null, output: null, per_image: 40 });
    assert.equal(byId.get('svc-shiplow')!.available, true, 'a pipeline is available through its lanes');
    assert.doesNotMatch(r.body, /openai-main|gpt-|claude|api\.openai\.com/, 'no upstream name leaks');
    assert.equal(r.headers['x-ratelimit-limit-requests'], '60');
  });

  it('needs a key for the catalog too', async () => {
    for (const url of ['/v1/models', '/v1/available-models', '/inference/v1/models']) {
      const r = await t.app.inject({ url });
      assert.equal(r.statusCode, 401, url);
      assert.deepEqual(r.json(), { error: 'unauthorized' });
    }
  });

  it('refuses a missing, malformed, unknown or revoked key with 401 unauthorized', async () => {
    const none = await t.app.inject({ method: 'POST', url: '/v1/_probe/ping' });
    assert.equal(none.statusCode, 401);
    assert.deepEqual(none.json(), { error: 'unauthorized' });

    for (const key of ['nope', `svk_${'A'.repeat(43)}`]) {
      await assert.rejects(client(t, key).models.list(), (e: unknown) => {
        assert.ok(e instanceof AuthenticationError);
        assert.equal(e.status, 401);
        assert.equal(e.error, 'unauthorized');
        return true;
      });
    }

    const acct = await createTestAccount(t);
    await client(t, acct.key).models.list();
    const revoked = await t.app.inject({ method: 'DELETE', url: `/admin/keys/${acct.keyId}`, headers: t.admin });
    assert.equal(revoked.statusCode, 200);
    assert.match(revoked.json().revoked_at, /^\d{4}-/);
    // The instance that revoked forgets the key at once, cache or not.
    await assert.rejects(client(t, acct.key).models.list(), AuthenticationError);
  });

  it('accepts x-api-key only on the messages routes', async () => {
    const acct = await createTestAccount(t);
    const viaX = { 'x-api-key': acct.key };
    assert.equal((await t.app.inject({ method: 'POST', url: '/inference/v1/_probe/messages', headers: viaX })).statusCode, 200);
    assert.equal((await t.app.inject({ method: 'POST', url: '/v1/_probe/ping', headers: viaX })).statusCode, 401);
    assert.equal((await t.app.inject({ method: 'GET', url: '/v1/models', headers: viaX })).statusCode, 401);
  });

  it('refuses an account whose email is not verified with 403, until it is verified', async () => {
    const acct = await createTestAccount(t, { verified: false });
    await assert.rejects(client(t, acct.key).models.list(), (e: unknown) => {
      assert.ok(e instanceof PermissionDeniedError);
      assert.equal(e.status, 403);
      assert.equal(e.error, 'please verify your email first');
      return true;
    });
    const v = await t.app.inject({ method: 'POST', url: `/admin/accounts/${acct.id}/verify-email`, headers: t.admin });
    assert.equal(v.json().email_verified, true);
    const ids = (await client(t, acct.key).models.list()).data.map((m) => m.id);
    assert.deepEqual(ids, CHAT_MODELS);
  });

  it('records last_used_at in batches, not per request', async () => {
    const acct = await createTestAccount(t);
    for (let i = 0; i < 5; i++) await client(t, acct.key).models.list();
    const before = await t.app.inject({ url: `/admin/accounts/${acct.id}`, headers: t.admin });
    assert.equal(before.json().keys[0].last_used_at, null, 'nothing written on the request path');
    await t.deps.apiKeys.flushLastUsed();
    const after = await t.app.inject({ url: `/admin/accounts/${acct.id}`, headers: t.admin });
    assert.match(after.json().keys[0].last_used_at, /^\d{4}-\d\d-\d\dT/);
  });
});

describe('revocation across instances', () => {
  // The clock never moves and the cache trusts a lookup for a minute: what reaches the other
  // instance is the database's notification, not an expiring cache entry.
  const clock = manualClock();
  const env = { API_KEY_CACHE_TTL_MS: '60000' };
  const apps: TestApp[] = [];
  after(async () => {
    for (const a of apps.reverse()) await a.close();
  });
  const pair = async () => {
    const a = await startTestApp({ clock, env });
    apps.push(a);
    const b = await startTestApp({ clock, database: a.database, env });
    apps.push(b);
    await a.listen();
    await b.listen();
    return { a, b };
  };

  it('an admin revocation on one instance refuses the key on the other at once', async () => {
    const { a, b } = await pair();
    const acct = await createTestAccount(a);
    await client(a, acct.key).models.list();
    await client(b, acct.key).models.list(); // cached on b

    const r = await a.app.inject({ method: 'DELETE', url: `/admin/keys/${acct.keyId}`, headers: a.admin });
    assert.equal(r.statusCode, 200);
    // On the revoking instance, the very next call.
    await assert.rejects(client(a, acct.key).models.list(), AuthenticationError);
    // On the other, once the revocation's notification has arrived: b waits for a marker sent
    // after the revocation's commit, and notifications arrive in commit order.
    await b.deps.apiKeys.barrier();
    await assert.rejects(client(b, acct.key).models.list(), (e: unknown) => {
      assert.ok(e instanceof AuthenticationError);
      assert.equal(e.status, 401);
      return true;
    });
  });

  it('a dashboard revocation on one instance refuses the key on the other at once', async () => {
    const { a, b } = await pair();
    const cookies = new Map<string, string>();
    const call = async (method: 'GET' | 'POST' | 'DELETE', url: string, csrf?: string, payload?: object) => {
      const r = await a.app.inject({
        method,
        url: `/dashboard/api${url}`,
        headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '), ...(csrf ? { 'x-csrf-token': csrf } : {}) },
        ...(payload ? { payload } : {}),
      });
      for (const c of r.cookies) cookies.set(c.name, c.value);
      return r;
    };
    const anonymous = (await call('GET', '/session')).json().csrf_token as string;
    const email = `u${Math.random().toString(36).slice(2)}@example.com`;
    const signedUp = await call('POST', '/sign-up', anonymous, { email, password: 'a long enough password' });
    assert.equal(signedUp.statusCode, 201, signedUp.body);
    const verified = await a.app.inject({ method: 'POST', url: `/admin/accounts/${signedUp.json().id}/verify-email`, headers: a.admin });
    assert.equal(verified.statusCode, 200);
    const csrf = (await call('GET', '/session')).json().csrf_token as string;
    const created = await call('POST', '/keys', csrf, { name: 'laptop' });
    assert.equal(created.statusCode, 201, created.body);
    const { id, key } = created.json() as { id: number; key: string };
    await client(b, key).models.list(); // cached on b

    const revoked = await call('DELETE', `/keys/${id}`, csrf);
    assert.equal(revoked.statusCode, 200, revoked.body);
    await assert.rejects(client(a, key).models.list(), AuthenticationError);
    await b.deps.apiKeys.barrier();
    await assert.rejects(client(b, key).models.list(), AuthenticationError);
  });

  it('a verified email reaches the other instance at once too', async () => {
    const { a, b } = await pair();
    const acct = await createTestAccount(a, { verified: false });
    await assert.rejects(client(b, acct.key).models.list(), PermissionDeniedError); // cached on b
    const v = await a.app.inject({ method: 'POST', url: `/admin/accounts/${acct.id}/verify-email`, headers: a.admin });
    assert.equal(v.statusCode, 200);
    await b.deps.apiKeys.barrier();
    const ids = (await client(b, acct.key).models.list()).data.map((m) => m.id);
    assert.ok(ids.length > 0);
  });
});
