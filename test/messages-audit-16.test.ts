import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { postJson, startWithSdks, type Gateway } from './helpers/gateway.ts';
import type { TestAccount } from './helpers/inference.ts';

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
});
