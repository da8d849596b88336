import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import { startWithSdks, type Gateway } from './helpers/gateway.ts';

/**
 * A Messages answer keeps the model's block order, whole as streamed: an Anthropic model that
 * writes, calls a tool and writes again gives text, tool_use, text (docs/api-decisions.md,
 * "Messages: block order").
 */
describe('messages: text after a tool call', () => {
  let g: Gateway;
  let anthropic: Anthropic;

  before(async () => {
    ({ g, anthropic } = await startWithSdks());
  });
  after(() => g.close());

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

  it('stays one text block before the calls when nothing follows them', async () => {
    g.anthropic.chat.enqueue({ text: 'Checking.', toolCalls: [{ name: 'weather', arguments: { city: 'Oslo' } }, { name: 'weather', arguments: { city: 'Rome' } }] });
    const whole = await anthropic.messages.create({ model: 'svc-vision', max_tokens: 300, tools, messages: [{ role: 'user', content: 'Oslo and Rome?' }] });
    assert.deepEqual(blocks(whole.content), ['text:Checking.', 'tool_use:weather:{"city":"Oslo"}', 'tool_use:weather:{"city":"Rome"}']);
  });
});
