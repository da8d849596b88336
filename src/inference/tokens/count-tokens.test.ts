import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chatInputExceeds, countTextTokens, estimateChatInputTokens, estimateOutputTokens, someTextExceeds } from './count-tokens.ts';

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

  it('tells whether the input exceeds a limit exactly as estimateChatInputTokens counts it', () => {
    const request = (texts: string[], image = false) => ({
      messages: [
        { role: 'system' as const, content: texts[0]! },
        { role: 'user' as const, content: [...texts.slice(1).map((text) => ({ type: 'text' as const, text })), ...(image ? [{ type: 'image' as const, url: 'https://example.com/a.png' }] : [])] },
        { role: 'assistant' as const, content: 'ok', toolCalls: [{ id: 'c', name: 'f', arguments: '{"a":1}' }] },
      ],
      tools: [{ name: 'f', parameters: { type: 'object' } }],
      stop: [],
      stream: false,
    });
    for (const r of [request(['Be brief.', 'word '.repeat(3000)]), request(['', 'x'.repeat(5000), '12345 '.repeat(400)], true), request(['a', 'b'])]) {
      const n = estimateChatInputTokens(r);
      assert.equal(chatInputExceeds(r, n), false, `${n} fits ${n}`);
      assert.equal(chatInputExceeds(r, n - 1), true, `${n} exceeds ${n - 1}`);
      assert.equal(chatInputExceeds(r, 0), true);
    }
    const long = 'word '.repeat(300);
    const n = countTextTokens(long);
    assert.equal(someTextExceeds([long, 'word '.repeat(10)], n), false);
    assert.equal(someTextExceeds(['word '.repeat(10), long], n - 1), true);
  });

  it('estimates output from text, reasoning and tool calls', () => {
    assert.equal(estimateOutputTokens({ text: 'Hello world', reasoning: '', toolCalls: [] }), 2);
    assert.ok(estimateOutputTokens({ text: '', reasoning: 'hmm', toolCalls: [{ name: 'get', arguments: '{"a":1}' }] }) > 3);
  });
});
