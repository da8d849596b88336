import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { postJson, startWithSdks, type Gateway } from './helpers/gateway.ts';
import type { TestAccount } from './helpers/inference.ts';
import { auditRequests } from './helpers/spec-audit.ts';

/**
 * Findings of the sixteenth audit of `/v1/messages` with the official `@anthropic-ai/sdk` client
 * and plain HTTP (docs/api-decisions.md, "Messages: sixteenth audit").
 */
describe('messages, sixteenth audit', () => {
  let g: Gateway;
  let acct: TestAccount;
  let anthropic: Anthropic;
  let openai: OpenAI;

  before(async () => void ({ g, acct, anthropic, openai } = await startWithSdks()));
  after(() => g.close());


  const { refused } = auditRequests(() => ({ g, key: acct.key }));
  const hi = [{ role: 'user' as const, content: 'hi' }];

  /** The raw SSE events of a streamed messages answer, as [event name, data]. */
  async function rawEvents(body: Record<string, unknown>): Promise<{ event: string; data: Record<string, unknown> }[]> {
    const r = await postJson(g, acct.key, '/v1/messages', { ...body, stream: true });
    assert.equal(r.status, 200);
    return (await r.text())
      .split('\n\n')
      .filter((e) => e.trim() !== '')
      .map((e) => {
        const [event, data] = e.split('\n');
        return { event: event!.slice('event: '.length), data: JSON.parse(data!.slice('data: '.length)) as Record<string, unknown> };
      });
  }

  describe('stop reasons', () => {
    it('an Anthropic upstream that ran out of context window is model_context_window_exceeded, created and streamed', async () => {
      g.anthropic.chat.enqueue({ text: 'The window is full', finish: 'context_window' });
      const m = await anthropic.messages.create({ model: 'svc-vision', max_tokens: 100, messages: hi });
      assert.equal(m.stop_reason, 'model_context_window_exceeded');
      assert.equal(m.stop_sequence, null);

      g.anthropic.chat.enqueue({ text: 'The window is full', finish: 'context_window' });
      const streamed = await anthropic.messages.stream({ model: 'svc-vision', max_tokens: 100, messages: hi }).finalMessage();
      assert.equal(streamed.stop_reason, 'model_context_window_exceeded');
      assert.deepEqual(streamed.content, m.content);

      g.anthropic.chat.enqueue({ text: 'The window is full', finish: 'context_window' });
      const events = await rawEvents({ model: 'svc-vision', max_tokens: 100, messages: hi });
      const delta = events.find((e) => e.event === 'message_delta')!.data as { delta: { stop_reason: string } };
      assert.equal(delta.delta.stop_reason, 'model_context_window_exceeded');
    });

    it('max_tokens is still max_tokens, and a chat completions client still gets length for a full window', async () => {
      g.anthropic.chat.enqueue({ text: 'cut', finish: 'length' });
      const m = await anthropic.messages.create({ model: 'svc-vision', max_tokens: 100, messages: hi });
      assert.equal(m.stop_reason, 'max_tokens');
      g.anthropic.chat.enqueue({ text: 'The window is full', finish: 'context_window' });
      const c = await openai.chat.completions.create({ model: 'svc-vision', max_tokens: 100, messages: hi });
      assert.equal(c.choices[0]!.finish_reason, 'length');
    });
  });

  describe('cache_control', () => {
    const marked = (cacheControl: unknown) => [{ role: 'user', content: [{ type: 'text', text: 'a long prompt', cache_control: cacheControl }] }];

    it('a marker of another type or an unknown ttl is a 400 naming it on every model, nothing sent upstream', async () => {
      for (const model of ['svc-vision', 'svc-fast']) {
        await refused('/v1/messages', { model, max_tokens: 50, messages: marked({ type: 'persistent' }) }, 'messages[0].content[0].cache_control.type: must be one of ephemeral');
        await refused('/v1/messages', { model, max_tokens: 50, messages: marked({ type: 'ephemeral', ttl: '2h' }) }, 'messages[0].content[0].cache_control.ttl: must be one of 5m, 1h');
        await refused('/v1/messages', { model, max_tokens: 50, system: [{ type: 'text', text: 's', cache_control: {} }], messages: hi }, 'system[0].cache_control.type: is required');
        await refused(
          '/v1/messages',
          { model, max_tokens: 50, tools: [{ name: 'f', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral', ttl: 300 } }], messages: hi },
          'tools[0].cache_control.ttl: must be a string',
        );
      }
      await refused('/v1/messages/count_tokens', { model: 'svc-vision', messages: marked({ type: 'ephemeral', ttl: '1d' }) }, 'messages[0].content[0].cache_control.ttl: must be one of 5m, 1h');
    });

    it('ephemeral markers with and without a ttl reach an Anthropic upstream as given', async () => {
      g.anthropic.chat.enqueue({ text: 'ok' });
      await anthropic.messages.create({
        model: 'svc-vision',
        max_tokens: 50,
        system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral', ttl: '1h' } }],
        messages: [{ role: 'user', content: [{ type: 'text', text: 'a long prompt', cache_control: { type: 'ephemeral' } }] }],
      });
      const sent = g.anthropic.requests.at(-1)!.body as { system: unknown; messages: { content: unknown }[] };
      assert.deepEqual(sent.system, [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral', ttl: '1h' } }]);
      assert.deepEqual(sent.messages[0]!.content, [{ type: 'text', text: 'a long prompt', cache_control: { type: 'ephemeral' } }]);
    });
  });

  describe('usage', () => {
    it('a message has the cache writes by ttl and the service tier, as the API answers', async () => {
      g.anthropic.chat.enqueue({ text: 'cached', usage: { input: 1000, cached: 200, output: 9, written: 700, written1h: 500 } });
      const m = await anthropic.messages.create({ model: 'svc-vision', max_tokens: 50, messages: hi });
      assert.deepEqual(m.usage, {
        input_tokens: 100,
        cache_creation_input_tokens: 700,
        cache_read_input_tokens: 200,
        cache_creation: { ephemeral_5m_input_tokens: 200, ephemeral_1h_input_tokens: 500 },
        output_tokens: 9,
        service_tier: 'standard',
      });
      // An OpenAI-compatible upstream writes no cache a client marked.
      g.openai.chat.enqueue({ text: 'cached', usage: { input: 100, cached: 40, output: 9 } });
      const o = await anthropic.messages.create({ model: 'svc-fast', max_tokens: 50, messages: hi });
      assert.deepEqual(o.usage, {
        input_tokens: 60,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 40,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
        output_tokens: 9,
        service_tier: 'standard',
      });
    });

    it('streamed: message_start has the tier and no breakdown yet (the counts come at the end), message_delta the cumulative counts', async () => {
      g.anthropic.chat.enqueue({ text: 'cached', usage: { input: 1000, cached: 200, output: 9, written: 700, written1h: 500 } });
      const events = await rawEvents({ model: 'svc-vision', max_tokens: 50, messages: hi });
      const start = events[0]!.data as { message: { usage: Record<string, unknown> } };
      assert.deepEqual(start.message.usage, {
        input_tokens: 0,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation: null,
        output_tokens: 0,
        service_tier: 'standard',
      });
      const delta = events.find((e) => e.event === 'message_delta')!.data as { usage: unknown };
      assert.deepEqual(delta.usage, { input_tokens: 100, cache_creation_input_tokens: 700, cache_read_input_tokens: 200, output_tokens: 9 });

      g.anthropic.chat.enqueue({ text: 'cached', usage: { input: 1000, cached: 200, output: 9, written: 700, written1h: 500 } });
      const final = await anthropic.messages.stream({ model: 'svc-vision', max_tokens: 50, messages: hi }).finalMessage();
      assert.deepEqual(final.usage, {
        input_tokens: 100,
        cache_creation_input_tokens: 700,
        cache_read_input_tokens: 200,
        cache_creation: null,
        output_tokens: 9,
        service_tier: 'standard',
      });
    });
  });

  describe('request fields the API checks', () => {
    it('thinking: a budget only with type enabled, display summarized or omitted', async () => {
      await refused('/v1/messages', { model: 'svc-vision', max_tokens: 5000, thinking: { type: 'adaptive', budget_tokens: 2000 }, messages: hi }, 'thinking.budget_tokens: is only taken with type enabled');
      await refused('/v1/messages', { model: 'svc-vision', max_tokens: 5000, thinking: { type: 'disabled', budget_tokens: 2000 }, messages: hi }, 'thinking.budget_tokens: is only taken with type enabled');
      await refused('/v1/messages', { model: 'svc-vision', max_tokens: 5000, thinking: { type: 'enabled', budget_tokens: 2000, display: 'full' }, messages: hi }, 'thinking.display: must be one of summarized, omitted');
      await refused('/v1/messages/count_tokens', { model: 'svc-vision', thinking: { type: 'adaptive', display: 'hidden' }, messages: hi }, 'thinking.display: must be one of summarized, omitted');
    });

    it('service_tier: auto or standard_only, accepted and ignored', async () => {
      await refused('/v1/messages', { model: 'svc-fast', max_tokens: 50, service_tier: 'priority', messages: hi }, 'service_tier: must be one of auto, standard_only');
      for (const tier of ['auto', 'standard_only'] as const) {
        g.openai.chat.enqueue({ text: 'ok' });
        const m = await anthropic.messages.create({ model: 'svc-fast', max_tokens: 50, service_tier: tier, messages: hi });
        assert.equal(m.usage.service_tier, 'standard');
      }
    });
  });
});
