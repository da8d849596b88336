import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type OpenAI from 'openai';
import { dashboardSession } from './helpers/dashboard-session.ts';
import { accountCredits, postJson, startGateway, startWithSdks, usageRows, type Gateway } from './helpers/gateway.ts';
import type { TestAccount } from './helpers/inference.ts';

/**
 * Findings of an eighth audit of the inference API and the account dashboard, tried as a new user
 * would with the official clients and plain HTTP (docs/api-decisions.md, "Inference: eighth audit").
 */
describe('inference API, eighth audit', () => {
  let g: Gateway;
  let acct: TestAccount;
  let openai: OpenAI;

  before(async () => void ({ g, acct, openai } = await startWithSdks()));
  after(() => g.close());

  /** The text of the last conversation the fake OpenAI upstream was sent, every message joined. */
  const lastSentText = (): string => {
    const body = g.openai.requests.at(-1)!.body as { messages: { content: unknown }[] };
    return body.messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');
  };

  describe('stored responses with text PostgreSQL cannot hold (a NUL character, an unpaired surrogate)', () => {
    it('a model answer with a NUL is answered as the upstream gave it, stored, retrieved and continued, not a 500', async () => {
      g.openai.chat.enqueue({ text: 'cost\u0000s $5' });
      const first = await openai.responses.create({ model: 'svc-fast', input: 'prices?' });
      assert.equal(first.output_text, 'cost\u0000s $5', 'the answer is the upstream\u2019s text');
      const kept = await openai.responses.retrieve(first.id);
      assert.equal(kept.output_text, 'cost\uFFFDs $5', 'stored with U+FFFD in place of the NUL');
      g.openai.chat.enqueue({ text: 'ok' });
      const next = await openai.responses.create({ model: 'svc-fast', input: 'and now?', previous_response_id: first.id });
      assert.equal(next.output_text, 'ok');
      assert.match(lastSentText(), /cost\uFFFDs \$5/);
    });

    it('the same streamed: the stream completes and the response can be continued at once', async () => {
      g.openai.chat.enqueue({ text: 'nul\u0000here' });
      const stream = openai.responses.stream({ model: 'svc-fast', input: 'hi' });
      let text = '';
      for await (const e of stream) if (e.type === 'response.output_text.delta') text += e.delta;
      const done = await stream.finalResponse();
      assert.equal(text, 'nul\u0000here');
      g.openai.chat.enqueue({ text: 'ok' });
      const next = await openai.responses.create({ model: 'svc-fast', input: 'go on', previous_response_id: done.id });
      assert.equal(next.output_text, 'ok');
      assert.match(lastSentText(), /nul\uFFFDhere/);
    });

    it('an input with a NUL or an unpaired surrogate (text cut inside an emoji) is answered, stored and continued', async () => {
      for (const input of ['a\u0000b', 'cut \uD83D', 'cut \uDE00 too']) {
        const r = await postJson(g, acct.key, '/v1/responses', { model: 'svc-fast', input });
        assert.equal(r.status, 200, `${JSON.stringify(input)}: ${await r.clone().text()}`);
        const { id } = (await r.json()) as { id: string };
        g.openai.chat.enqueue({ text: 'ok' });
        const next = await postJson(g, acct.key, '/v1/responses', { model: 'svc-fast', input: 'more', previous_response_id: id });
        assert.equal(next.status, 200, await next.clone().text());
        await next.arrayBuffer();
        const stored = input.replace('\u0000', '\uFFFD').replace('\uD83D', '\uFFFD').replace('\uDE00', '\uFFFD');
        assert.ok(lastSentText().includes(stored), lastSentText());
      }
    });

    it('the answer that could not be stored is billed once, as any other', async () => {
      const before = (await usageRows(g.t, acct.id)).length;
      g.openai.chat.enqueue({ text: 'x\u0000', usage: { input: 10, cached: 0, output: 3 } });
      const r = await postJson(g, acct.key, '/v1/responses', { model: 'svc-fast', input: 'hi' });
      assert.equal(r.status, 200);
      await r.arrayBuffer();
      await accountCredits(g.t, acct.id);
      const rows = await usageRows(g.t, acct.id);
      assert.equal(rows.length, before + 1);
      assert.equal(rows[0]!.status, 200);
    });

    it('an id with a NUL names no stored response or item: 404 response not found, as an unknown id, never a 500', async () => {
      const cont = await postJson(g, acct.key, '/v1/responses', { model: 'svc-fast', input: 'hi', previous_response_id: 'resp_\u0000' });
      assert.equal(cont.status, 404);
      assert.deepEqual(await cont.json(), { error: 'response not found' });
      const get = await fetch(`${g.t.url}/v1/responses/resp_%00`, { headers: { authorization: `Bearer ${acct.key}` } });
      assert.equal(get.status, 404);
      assert.deepEqual(await get.json(), { error: 'response not found' });
      const ref = await postJson(g, acct.key, '/v1/responses', { model: 'svc-fast', input: [{ type: 'item_reference', id: 'fc_\u0000' }, { role: 'user', content: 'hi' }] });
      assert.equal(ref.status, 400);
      assert.deepEqual(await ref.json(), { error: 'input[0].id: no stored item fc_\u0000' });
    });
  });
});

describe('account dashboard, eighth audit', () => {
  let g: Gateway;
  // Leases go back only after a minute here, as a busy account's do (the default is 5 s after the last request).
  before(async () => void (g = await startGateway({ env: { CREDIT_LEASE_IDLE_MS: '60000', RATE_LIMIT_INFERENCE_PER_MINUTE: '10000' } })));
  after(() => g.close());

  /** A browser's session whose calls must succeed: each gives the answer's JSON. */
  async function browser() {
    const session = await dashboardSession(g.t.url);
    const call = async (method: string, path: string, body?: unknown) => {
      const r = await session.call(method, path, body);
      assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${JSON.stringify(r.json)}`);
      return r.json;
    };
    return { call, refresh: session.refresh };
  }

  it('after a call the balance is available again: credits the account\'s idle lease holds are not shown as spoken for', async () => {
    const b = await browser();
    const account = (await b.call('POST', '/sign-up', { email: `new${Date.now()}@example.com`, password: 'a long passphrase' })) as { id: number };
    await b.refresh();
    const { key } = (await b.call('POST', '/keys', { name: 'laptop' })) as { key: string };
    assert.equal((await g.t.app.inject({ method: 'POST', url: `/admin/accounts/${account.id}/verify-email`, headers: g.t.admin })).statusCode, 200);
    assert.equal((await g.t.app.inject({ method: 'POST', url: `/admin/accounts/${account.id}/credits`, headers: g.t.admin, payload: { credits: 10 } })).statusCode, 200);

    g.openai.chat.enqueue({ text: 'hi', usage: { input: 40, cached: 0, output: 12 } });
    const r = await postJson(g, key, '/v1/chat/completions', { model: 'svc-fast', messages: [{ role: 'user', content: 'hello' }] });
    assert.equal(r.status, 200, await r.clone().text());
    await r.arrayBuffer();

    // 40 * 0.45 + 12 * 0.90 = 28.8 per thousand: 0.0288 credits.
    const session = (await b.call('GET', '/session')) as { account: { credits: number; available: number; credits_micro: string } };
    assert.equal(session.account.credits_micro, '9971200');
    assert.equal(session.account.available, session.account.credits, JSON.stringify(session.account));
    const credits = (await b.call('GET', '/credits')) as { account: { credits: number; available: number } };
    assert.equal(credits.account.available, 9.9712, JSON.stringify(credits.account));
  });

  it('the keys page shows a key used as used, at once, as it shows the call on the usage page', async () => {
    const b = await browser();
    const account = (await b.call('POST', '/sign-up', { email: `keys${Date.now()}@example.com`, password: 'a long passphrase' })) as { id: number };
    await b.refresh();
    const { key, id } = (await b.call('POST', '/keys', { name: 'ci' })) as { key: string; id: number };
    await g.t.app.inject({ method: 'POST', url: `/admin/accounts/${account.id}/verify-email`, headers: g.t.admin });
    await g.t.app.inject({ method: 'POST', url: `/admin/accounts/${account.id}/credits`, headers: g.t.admin, payload: { credits: 10 } });
    const before = Date.now();
    const r = await postJson(g, key, '/v1/chat/completions', { model: 'svc-fast', messages: [{ role: 'user', content: 'hello' }] });
    assert.equal(r.status, 200);
    await r.arrayBuffer();
    const usage = (await b.call('GET', '/usage')) as { recent: unknown[] };
    assert.equal(usage.recent.length, 1);
    const { keys } = (await b.call('GET', '/keys')) as { keys: { id: number; last_used_at: string | null }[] };
    const used = keys.find((k) => k.id === id)?.last_used_at ?? null;
    assert.ok(used !== null && Date.parse(used) >= before - 1000, JSON.stringify(keys));
  });
});
