import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import type { CanonicalChatResponse } from '../../canonical/chat.ts';
import { createReasoningSealers } from '../../reasoning-sealer.ts';
import { decodeReasoningContent } from '../reasoning-content.ts';
import { formatChatCompletion as formatWith } from './format-chat-completion.ts';

const sealer = createReasoningSealers(randomBytes(32))(1);
const formatChatCompletion = (response: CanonicalChatResponse, id: typeof identity) => formatWith(response, id, sealer);

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
      // Reasoning without blocks (an OpenAI-compatible upstream's): its text, nothing to send back.
      reasoning: 'thought',
      reasoning_details: [{ type: 'reasoning.text', text: 'thought', format: 'svc-reasoning-v1', index: 0 }],
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'a', arguments: '{"x":1}' } },
        { id: 'call_2', type: 'function', function: { name: 'b', arguments: '{}' } },
      ],
      refusal: null,
    });
    assert.equal(out.choices[0]!.finish_reason, 'tool_calls');
  });

  it("gives Anthropic's thinking as reasoning and reasoning_details, each block's signature or data sealed (OpenRouter's convention, the service's format)", () => {
    const blocks = [
      { type: 'thinking' as const, thinking: 'First.', signature: 'EqQBsig-1' },
      { type: 'redacted_thinking' as const, data: 'EmwKopaque' },
      { type: 'thinking' as const, thinking: 'Second.', signature: 'EqQBsig-2' },
    ];
    const out = formatChatCompletion(
      { text: '', reasoning: 'First.Second.', reasoningBlocks: blocks, toolCalls: [{ id: 'call_1', name: 'a', arguments: '{}' }], finishReason: 'tool_calls', usage, usageEstimated: false },
      identity,
    );
    const message = out.choices[0]!.message as { reasoning: string; reasoning_details: Record<string, string | number>[] };
    assert.equal(message.reasoning, 'First.Second.');
    const [a, b, c] = message.reasoning_details;
    assert.deepEqual({ ...a, signature: '' }, { type: 'reasoning.text', text: 'First.', signature: '', format: 'svc-reasoning-v1', index: 0 });
    assert.deepEqual({ ...b, data: '' }, { type: 'reasoning.encrypted', data: '', format: 'svc-reasoning-v1', index: 1 });
    assert.deepEqual({ ...c, signature: '' }, { type: 'reasoning.text', text: 'Second.', signature: '', format: 'svc-reasoning-v1', index: 2 });
    // Each token holds its block whole, for this account only.
    assert.deepEqual(decodeReasoningContent(a!.signature as string, sealer), [blocks[0]]);
    assert.deepEqual(decodeReasoningContent(b!.data as string, sealer), [blocks[1]]);
    assert.deepEqual(decodeReasoningContent(c!.signature as string, sealer), [blocks[2]]);
    assert.equal(decodeReasoningContent(a!.signature as string, createReasoningSealers(randomBytes(32))(1)), null);
    for (const raw of ['EqQB', 'EmwK', 'anthropic', 'redacted']) assert.ok(!JSON.stringify(out).includes(raw), raw);
  });

  it('gives no reasoning fields to an answer without reasoning, and keeps an unsigned block without a signature', () => {
    const plain = formatChatCompletion({ text: 'x', reasoning: '', toolCalls: [], finishReason: 'stop', usage, usageEstimated: false }, identity);
    assert.deepEqual(Object.keys(plain.choices[0]!.message), ['role', 'content', 'refusal']);
    const unsigned = formatChatCompletion(
      { text: 'x', reasoning: 'hm', reasoningBlocks: [{ type: 'thinking', thinking: 'hm', signature: '' }], toolCalls: [], finishReason: 'stop', usage, usageEstimated: false },
      identity,
    );
    assert.deepEqual((unsigned.choices[0]!.message as { reasoning_details: unknown }).reasoning_details, [{ type: 'reasoning.text', text: 'hm', format: 'svc-reasoning-v1', index: 0 }]);
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
