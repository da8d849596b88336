import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatChatCompletion } from './format-chat-completion.ts';

const identity = { id: 'chatcmpl-abc', model: 'svc-fast', created: 1700000000 };
const usage = { inputTokens: 20, cachedInputTokens: 8, outputTokens: 5 };

describe('formatChatCompletion', () => {
  it('formats a text answer in the chat.completion shape', () => {
    const out = formatChatCompletion({ text: 'Hi!', reasoning: '', toolCalls: [], finishReason: 'stop', usage, usageEstimated: false }, identity);
    assert.deepEqual(out, {
      id: 'chatcmpl-abc',
      object: 'chat.completion',
      created: 1700000000,
      model: 'svc-fast',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi!', refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25, prompt_tokens_details: { cached_tokens: 8 }, completion_tokens_details: { reasoning_tokens: 0 } },
    });
  });

  it('gives tool calls with null content', () => {
    const out = formatChatCompletion(
      {
        text: '',
        reasoning: 'thought',
        toolCalls: [
          { id: 'call_1', name: 'a', arguments: '{"x":1}' },
          { id: 'call_2', name: 'b', arguments: '{}' },
        ],
        finishReason: 'tool_calls',
        usage,
        usageEstimated: false,
      },
      identity,
    );
    assert.deepEqual(out.choices[0]!.message, {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'a', arguments: '{"x":1}' } },
        { id: 'call_2', type: 'function', function: { name: 'b', arguments: '{}' } },
      ],
      refusal: null,
    });
    assert.equal(out.choices[0]!.finish_reason, 'tool_calls');
  });

  it('keeps an empty text answer as an empty string', () => {
    const out = formatChatCompletion({ text: '', reasoning: '', toolCalls: [], finishReason: 'length', usage, usageEstimated: true }, identity);
    assert.equal(out.choices[0]!.message.content, '');
  });

  it('reports the reasoning tokens inside the completion tokens', () => {
    const out = formatChatCompletion({ text: 'x', reasoning: 'hm', toolCalls: [], finishReason: 'stop', usage: { ...usage, reasoningTokens: 3 }, usageEstimated: false }, identity);
    assert.deepEqual(out.usage.completion_tokens_details, { reasoning_tokens: 3 });
  });
});
