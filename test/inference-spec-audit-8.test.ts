import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type OpenAI from 'openai';
import { accountCredits, postJson, startWithSdks, usageRows, type Gateway } from './helpers/gateway.ts';
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
