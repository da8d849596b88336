import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { startWithSdks, type Gateway } from './helpers/gateway.ts';

/**
 * A Messages answer keeps the model's block order, whole as streamed: an Anthropic model that
 * writes, calls a tool and writes again gives text, tool_use, text (docs/api-decisions.md,
 * "Messages: block order").
 */
describe('messages: text after a tool call', () => {
  let g: Gateway;
  let anthropic: Anthropic;
  let openai: OpenAI;

  before(async () => {
    ({ g, anthropic, openai } = await startWithSdks());
  });
  after(() => g.close());
  // A test that fails early leaves its scenarios queued; the next test starts from an empty queue.
  beforeEach(() => {
    while (g.anthropic.chat.next() !== g.anthropic.chat.otherwise);
  });

  const tools: Anthropic.Tool[] = [{ name: 'weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }];
  const blocks = (content: Anthropic.ContentBlock[]) => content.map((b) => (b.type === 'text' ? `text:${b.text}` : b.type === 'tool_use' ? `tool_use:${b.name}:${JSON.stringify(b.input)}` : b.type));

  it('comes after the call in a whole answer, as in the stream of the same answer', async () => {
    const scenario = { text: 'Checking.', toolCalls: [{ name: 'weather', arguments: { city: 'Rome' } }], textAfterToolCalls: 'Let me look it up.' };
    g.anthropic.chat.enqueue(scenario, scenario);
    const params = { model: 'svc-vision', max_tokens: 300, tools, messages: [{ role: 'user' as const, content: 'Rome?' }] };
    const whole = await anthropic.messages.create(params);
    const streamed = await anthropic.messages.stream(params).finalMessage();
    assert.deepEqual(blocks(streamed.content), ['text:Checking.', 'tool_use:weather:{"city":"Rome"}', 'text:Let me look it up.']);
    assert.deepEqual(blocks(whole.content), blocks(streamed.content));
    assert.equal(whole.stop_reason, 'tool_use');
  });

  it('comes after the call in a stream served from a whole answer (an upstream that answered JSON), and in responses', async () => {
    const scenario = { ignoreStream: true, text: 'Checking.', toolCalls: [{ name: 'weather', arguments: { city: 'Rome' } }], textAfterToolCalls: 'Let me look it up.' };
    g.anthropic.chat.enqueue(scenario, scenario);
    const streamed = await anthropic.messages.stream({ model: 'svc-vision', max_tokens: 300, tools, messages: [{ role: 'user', content: 'Rome?' }] }).finalMessage();
    assert.deepEqual(blocks(streamed.content), ['text:Checking.', 'tool_use:weather:{"city":"Rome"}', 'text:Let me look it up.']);
    const events: { type: string; response?: { output: { type: string }[] } }[] = [];
    const weather = [{ type: 'function' as const, name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }];
    for await (const e of await openai.responses.create({ model: 'svc-vision', input: 'Rome?', tools: weather, stream: true })) events.push(e as never);
    assert.deepEqual(events.at(-1)!.response!.output.map((o) => o.type), ['message', 'function_call', 'message']);
  });

  it('stays one text block before the calls when nothing follows them', async () => {
    g.anthropic.chat.enqueue({ text: 'Checking.', toolCalls: [{ name: 'weather', arguments: { city: 'Oslo' } }, { name: 'weather', arguments: { city: 'Rome' } }] });
    const whole = await anthropic.messages.create({ model: 'svc-vision', max_tokens: 300, tools, messages: [{ role: 'user', content: 'Oslo and Rome?' }] });
    assert.deepEqual(blocks(whole.content), ['text:Checking.', 'tool_use:weather:{"city":"Oslo"}', 'tool_use:weather:{"city":"Rome"}']);
  });
});
