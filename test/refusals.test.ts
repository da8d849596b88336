import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { zodResponseFormat, zodTextFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { accountCredits, expectedCost, PRICES, startWithSdks, usageRows, waitForUsage, type SdkSetup } from './helpers/gateway.ts';

/**
 * An upstream's refusal as each client protocol says it: an OpenAI-compatible upstream's
 * `message.refusal` (structured outputs, safety; `delta.refusal` when streamed) and an Anthropic
 * upstream's `stop_reason: "refusal"`, read by the official SDKs (docs/api-decisions.md, "Refusals
 * from the upstream"). svc-fast is served by the OpenAI-style fake, svc-vision by the Anthropic one.
 */
const REFUSAL = "I'm sorry, I can't help with that request.";
const Weather = z.object({ city: z.string(), degrees: z.number() });

describe('an upstream refusal reaches the client', () => {
  let s: SdkSetup;
  before(async () => {
    s = await startWithSdks();
  });
  after(() => s.g.close());

  describe('chat completions', () => {
    it('non-streamed: message.refusal with the text and content null; parse() gives the refusal and no parsed', async () => {
      s.g.openai.chat.enqueue({ refusal: REFUSAL });
      const r = await s.openai.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'bad' }] });
      assert.equal(r.choices[0]!.message.refusal, REFUSAL);
      assert.equal(r.choices[0]!.message.content, null);
      assert.equal(r.choices[0]!.finish_reason, 'stop');

      s.g.openai.chat.enqueue({ refusal: REFUSAL });
      const p = await s.openai.chat.completions.parse({ model: 'svc-fast', messages: [{ role: 'user', content: 'bad' }], response_format: zodResponseFormat(Weather, 'weather') });
      assert.equal(p.choices[0]!.message.refusal, REFUSAL);
      assert.equal(p.choices[0]!.message.parsed, null);
    });

    it('streamed: delta.refusal pieces after an opening chunk without content, and the SDK stream accumulates them', async () => {
      s.g.openai.chat.enqueue({ refusal: REFUSAL });
      const stream = await s.openai.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'bad' }], stream: true });
      const deltas: Record<string, unknown>[] = [];
      for await (const c of stream) if (c.choices[0]) deltas.push(c.choices[0].delta as Record<string, unknown>);
      assert.deepEqual(deltas[0], { role: 'assistant', content: null, refusal: '' });
      assert.equal(deltas.map((d) => (typeof d.refusal === 'string' ? d.refusal : '')).join(''), REFUSAL);
      assert.ok(deltas.filter((d) => typeof d.refusal === 'string' && d.refusal !== '').length > 1, 'the refusal streams in pieces');
      assert.ok(deltas.every((d) => !d.content), 'no content');

      s.g.openai.chat.enqueue({ refusal: REFUSAL });
      const sdk = s.openai.chat.completions.stream({ model: 'svc-fast', messages: [{ role: 'user', content: 'bad' }], response_format: zodResponseFormat(Weather, 'weather') });
      let done: string | null = null;
      sdk.on('refusal.done', (e) => (done = e.refusal));
      const final = await sdk.finalChatCompletion();
      assert.equal(final.choices[0]!.message.refusal, REFUSAL);
      assert.equal(final.choices[0]!.message.parsed, null);
      assert.equal(done, REFUSAL);
    });
  });

  describe('responses', () => {
    it('non-streamed: a message whose content is one refusal part; parse() has no output_parsed', async () => {
      s.g.openai.chat.enqueue({ refusal: REFUSAL });
      const r = await s.openai.responses.create({ model: 'svc-fast', input: 'bad' });
      assert.equal(r.status, 'completed');
      assert.equal(r.output.length, 1);
      const m = r.output[0]!;
      assert.equal(m.type, 'message');
      assert.deepEqual(m.type === 'message' && m.content, [{ type: 'refusal', refusal: REFUSAL }]);
      assert.equal(r.output_text, '');

      s.g.openai.chat.enqueue({ refusal: REFUSAL });
      const p = await s.openai.responses.parse({ model: 'svc-fast', input: 'weather', text: { format: zodTextFormat(Weather, 'weather') } });
      assert.equal(p.output_parsed, null);
    });

    it('streamed: content_part.added (refusal), refusal.delta, refusal.done, content_part.done; responses.stream() ends with the refusal', async () => {
      s.g.openai.chat.enqueue({ refusal: REFUSAL });
      const stream = s.openai.responses.stream({ model: 'svc-fast', input: 'bad' });
      const events: { type: string; [k: string]: unknown }[] = [];
      stream.on('event', (e) => events.push(e as unknown as { type: string }));
      const final = await stream.finalResponse();
      const types = events.map((e) => e.type);
      const at = (t: string) => types.indexOf(t);
      assert.ok(at('response.content_part.added') >= 0 && at('response.content_part.added') < at('response.refusal.delta'));
      assert.ok(at('response.refusal.delta') < at('response.refusal.done') && at('response.refusal.done') < at('response.content_part.done'));
      assert.ok(!types.includes('response.output_text.delta'));
      const added = events[at('response.content_part.added')]!;
      assert.deepEqual(added.part, { type: 'refusal', refusal: '' });
      const deltas = events.filter((e) => e.type === 'response.refusal.delta');
      assert.equal(deltas.map((e) => e.delta).join(''), REFUSAL);
      for (const e of deltas) assert.equal(e.content_index, 0);
      assert.equal(events[at('response.refusal.done')]!.refusal, REFUSAL);
      assert.deepEqual(events[at('response.content_part.done')]!.part, { type: 'refusal', refusal: REFUSAL });
      const m = final.output[0]!;
      // The SDK's parsed response adds `parsed: null` to every content part.
      assert.deepEqual(m.type === 'message' && m.content.map((p) => (p.type === 'refusal' ? { type: p.type, refusal: p.refusal } : p)), [{ type: 'refusal', refusal: REFUSAL }]);
      assert.equal(m.type === 'message' && m.status, 'completed');
    });

    it('a stored refusal is what the assistant said when the conversation goes on', async () => {
      s.g.openai.chat.enqueue({ refusal: REFUSAL });
      const first = await s.openai.responses.create({ model: 'svc-fast', input: 'bad' });
      s.g.openai.chat.enqueue({ text: 'Sure, something else.' });
      await s.openai.responses.create({ model: 'svc-fast', input: 'something else then', previous_response_id: first.id });
      const body = s.g.openai.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] };
      const assistant = body.messages.find((m) => m.role === 'assistant');
      assert.equal(assistant?.content, REFUSAL);
    });
  });

  describe('messages', () => {
    it("non-streamed: stop_reason refusal with the refusal as a text block", async () => {
      s.g.openai.chat.enqueue({ refusal: REFUSAL });
      const m = await s.anthropic.messages.create({ model: 'svc-fast', max_tokens: 100, messages: [{ role: 'user', content: 'bad' }] });
      assert.equal(m.stop_reason, 'refusal');
      assert.deepEqual(m.content, [{ type: 'text', text: REFUSAL }]);
    });

    it('streamed: the text streams and the message stops with refusal', async () => {
      s.g.openai.chat.enqueue({ refusal: REFUSAL });
      const m = await s.anthropic.messages.stream({ model: 'svc-fast', max_tokens: 100, messages: [{ role: 'user', content: 'bad' }] }).finalMessage();
      assert.equal(m.stop_reason, 'refusal');
      assert.deepEqual(m.content.map((b) => (b.type === 'text' ? b.text : b.type)), [REFUSAL]);
    });
  });

  describe('completions', () => {
    it('the refusal is the text, finished by content_filter, streamed and not', async () => {
      s.g.openai.chat.enqueue({ refusal: REFUSAL });
      const c = await s.openai.completions.create({ model: 'svc-fast', prompt: 'bad' });
      assert.equal(c.choices[0]!.text, REFUSAL);
      assert.equal(c.choices[0]!.finish_reason, 'content_filter');

      s.g.openai.chat.enqueue({ refusal: REFUSAL });
      let text = '';
      let finish: string | null = null;
      for await (const chunk of await s.openai.completions.create({ model: 'svc-fast', prompt: 'bad', stream: true })) {
        text += chunk.choices[0]?.text ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      assert.equal(text, REFUSAL);
      assert.equal(finish, 'content_filter');
    });
  });

  describe('an Anthropic upstream refusal keeps its mapping', () => {
    it('messages: stop_reason refusal with its text; chat: content_filter with the text as content', async () => {
      s.g.anthropic.chat.enqueue({ refusal: REFUSAL }, { refusal: REFUSAL }, { refusal: REFUSAL });
      const m = await s.anthropic.messages.create({ model: 'svc-vision', max_tokens: 100, messages: [{ role: 'user', content: 'bad' }] });
      assert.equal(m.stop_reason, 'refusal');
      assert.deepEqual(m.content, [{ type: 'text', text: REFUSAL }]);
      const streamed = await s.anthropic.messages.stream({ model: 'svc-vision', max_tokens: 100, messages: [{ role: 'user', content: 'bad' }] }).finalMessage();
      assert.equal(streamed.stop_reason, 'refusal');
      const r = await s.openai.chat.completions.create({ model: 'svc-vision', messages: [{ role: 'user', content: 'bad' }] });
      assert.equal(r.choices[0]!.finish_reason, 'content_filter');
      assert.equal(r.choices[0]!.message.content, REFUSAL);
      assert.equal(r.choices[0]!.message.refusal, null);
    });
  });

  it("bills the upstream's usage of a refusal as for any answer, streamed and not", async () => {
    const usage = { input: 33, cached: 0, output: 9 };
    const before = (await usageRows(s.g.t, s.acct.id)).length;
    const creditsBefore = (await accountCredits(s.g.t, s.acct.id)).credits;
    s.g.openai.chat.enqueue({ refusal: REFUSAL, usage }, { refusal: REFUSAL, usage });
    await s.openai.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'bad' }] });
    for await (const _ of await s.openai.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'bad' }], stream: true, stream_options: { include_usage: true } })) {
      // read to the end
    }
    const rows = (await waitForUsage(s.g.t, s.acct.id, before + 2)).slice(0, 2);
    const cost = expectedCost(PRICES['svc-fast'], usage);
    for (const row of rows) {
      assert.equal(row.status, 200);
      assert.equal(row.usage_source, 'upstream');
      assert.equal(row.input_tokens, 33);
      assert.equal(row.output_tokens, 9);
      assert.equal(BigInt(row.cost_micro), cost);
    }
    assert.equal((await accountCredits(s.g.t, s.acct.id)).credits, creditsBefore - 2n * cost);
  });
});
