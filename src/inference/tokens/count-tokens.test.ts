import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countTextTokens, estimateChatInputTokens, estimateOutputTokens } from './count-tokens.ts';

describe('token counting', () => {
  it('counts text with the o200k tokenizer', () => {
    assert.equal(countTextTokens(''), 0);
    assert.equal(countTextTokens('Hello world'), 2);
  });

  it('treats special-token markers in client text as plain text', () => {
    assert.ok(countTextTokens('a <|endoftext|> b') > 3);
  });

  it('estimates chat input from every message, image, tool and schema', () => {
    const text = estimateChatInputTokens({
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello world' }] }],
      tools: [],
      stop: [],
      stream: false,
    });
    assert.equal(text, 3 + 4 + 2);
    const more = estimateChatInputTokens({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Hello world' }, { type: 'image', url: 'https://x.test/a.png' }] },
        { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'get', arguments: '{"a":1}' }] },
        { role: 'tool', toolCallId: 'call_1', content: '42' },
      ],
      tools: [{ name: 'get', parameters: { type: 'object' } }],
      responseFormat: { type: 'json_schema', name: 'x', schema: { type: 'object' } },
      stop: [],
      stream: false,
    });
    assert.ok(more > text + 765);
  });

  it('estimates output from text, reasoning and tool calls', () => {
    assert.equal(estimateOutputTokens({ text: 'Hello world', reasoning: '', toolCalls: [] }), 2);
    assert.ok(estimateOutputTokens({ text: '', reasoning: 'hmm', toolCalls: [{ name: 'get', arguments: '{"a":1}' }] }) > 3);
  });
});
