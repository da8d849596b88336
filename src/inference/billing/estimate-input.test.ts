import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CanonicalChatRequest, ReasoningBlock } from '../canonical/chat.ts';
import { countTextTokens, estimateChatInputTokens } from '../tokens/count-tokens.ts';
import { IMAGE_INPUT_TOKENS, estimateChatInput, estimateEmbeddingsInput, estimateRerankInput } from './estimate-input.ts';

const english = 'The quick brown fox jumps over the lazy dog, then reads the documentation twice. ';

describe('request input estimates for reservations', () => {
  it('counts chat text by bytes, at or above the tokenizer count', () => {
    const req: CanonicalChatRequest = {
      messages: [
        { role: 'system', content: english },
        { role: 'user', content: [{ type: 'text', text: english.repeat(20) }] },
        { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{"q":"fox"}' }] },
        { role: 'tool', toolCallId: 'call_1', content: english },
      ],
      tools: [{ name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } }],
      responseFormat: { type: 'json_schema', name: 'answer', schema: { type: 'object', properties: { a: { type: 'string' } } } },
      stop: [],
      stream: false,
    };
    const estimate = estimateChatInput(req);
    assert.ok(estimate >= estimateChatInputTokens(req), `${estimate} >= tokenizer ${estimateChatInputTokens(req)}`);
  });

  it('holds for the reasoning an assistant turn sends back: thinking text and redacted blocks', () => {
    const turn = (reasoning?: readonly ReasoningBlock[]): CanonicalChatRequest => ({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        { role: 'assistant', content: '', toolCalls: [{ id: 't1', name: 'f', arguments: '{}' }], ...(reasoning ? { reasoning } : {}) },
        { role: 'tool', toolCallId: 't1', content: 'ok' },
      ],
      tools: [],
      stop: [],
      stream: false,
    });
    const without = estimateChatInput(turn());
    const thinking = english.repeat(100);
    const withThinking = estimateChatInput(turn([{ type: 'thinking', thinking, signature: 'sig' }]));
    assert.ok(withThinking - without >= countTextTokens(thinking), `${withThinking - without} >= ${countTextTokens(thinking)}`);
    const data = 'QUJD'.repeat(3000);
    assert.ok(estimateChatInput(turn([{ type: 'redacted_thinking', data }])) - without >= data.length / 3 - 1);
  });

  it('counts an image as a fixed number of tokens, whatever the size of its data URI', () => {
    const img = (url: string): CanonicalChatRequest => ({ messages: [{ role: 'user', content: [{ type: 'image', url }] }], tools: [], stop: [], stream: false });
    const small = estimateChatInput(img('https://x.example/a.png'));
    const big = estimateChatInput(img(`data:image/png;base64,${'A'.repeat(1_000_000)}`));
    assert.equal(small, big);
    assert.equal(small, 3 + 4 + IMAGE_INPUT_TOKENS);
  });

  it('counts every embedding input and the query once per rerank document', () => {
    assert.ok(estimateEmbeddingsInput({ input: [english, english] }) >= 2 * countTextTokens(english));
    assert.equal(estimateRerankInput({ query: 'abc', documents: ['abcdef', 'x'] }), 1 + 2 + 1 + 1);
  });
});
