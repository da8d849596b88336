import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StreamPart } from '../../canonical/chat.ts';
import { encodeSseData } from '../sse.ts';
import { createChatChunkFormatter, createChatStreamEncoder } from './create-chat-chunk-formatter.ts';

const base = { id: 'chatcmpl-abc', model: 'svc-fast', created: 1700000000 };
const parts: StreamPart[] = [
  { type: 'reasoning-delta', text: 'hmm' },
  { type: 'text-delta', text: 'Hel' },
  { type: 'text-delta', text: '' },
  { type: 'text-delta', text: 'lo' },
  { type: 'tool-call-start', index: 0, id: 'call_a', name: 'get' },
  { type: 'tool-call-delta', index: 0, argumentsDelta: '{"x"' },
  { type: 'tool-call-start', index: 1, id: 'call_b', name: 'put' },
  { type: 'tool-call-delta', index: 0, argumentsDelta: ':1}' },
  { type: 'tool-call-delta', index: 1, argumentsDelta: '{}' },
  { type: 'finish', reason: 'tool_calls' },
  { type: 'usage', usage: { inputTokens: 10, cachedInputTokens: 2, outputTokens: 7 }, estimated: false },
];

describe('createChatChunkFormatter', () => {
  it('emits OpenAI chunks: role first, content, tool-call deltas by index, finish', () => {
    const f = createChatChunkFormatter({ ...base, includeUsage: false });
    const chunks = parts.flatMap((p) => f.format(p)) as { choices: { delta: unknown; finish_reason: unknown }[] }[];
    assert.deepEqual(
      chunks.map((c) => [c.choices[0]!.delta, c.choices[0]!.finish_reason]),
      [
        [{ role: 'assistant', content: '' }, null],
        [{ content: 'Hel' }, null],
        [{ content: 'lo' }, null],
        [{ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get', arguments: '' } }] }, null],
        [{ tool_calls: [{ index: 0, function: { arguments: '{"x"' } }] }, null],
        [{ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'put', arguments: '' } }] }, null],
        [{ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }, null],
        [{ tool_calls: [{ index: 1, function: { arguments: '{}' } }] }, null],
        [{}, 'tool_calls'],
      ],
    );
    assert.deepEqual(Object.keys(chunks[0]!), ['id', 'object', 'created', 'model', 'choices']);
    assert.deepEqual({ ...chunks[0], choices: undefined }, { ...base, object: 'chat.completion.chunk', choices: undefined });
  });

  it('with include_usage: usage null on every chunk, then a usage chunk with no choices', () => {
    const f = createChatChunkFormatter({ ...base, includeUsage: true });
    const chunks = parts.flatMap((p) => f.format(p)) as { usage: unknown; choices: unknown[] }[];
    assert.ok(chunks.slice(0, -1).every((c) => c.usage === null));
    assert.deepEqual(chunks.at(-1), {
      ...base,
      object: 'chat.completion.chunk',
      choices: [],
      usage: { prompt_tokens: 10, completion_tokens: 7, total_tokens: 17, prompt_tokens_details: { cached_tokens: 2 }, completion_tokens_details: { reasoning_tokens: 0 } },
    });
  });

  it('opens with the role chunk even when the first part is the finish', () => {
    const f = createChatChunkFormatter({ ...base, includeUsage: false });
    assert.equal(f.format({ type: 'finish', reason: 'length' }).length, 2);
  });
});

describe('createChatStreamEncoder', () => {
  it('writes text chunks from its template exactly as the formatter would', () => {
    const parts: StreamPart[] = [
      { type: 'reasoning-delta', text: 'thinking' },
      { type: 'text-delta', text: '' },
      { type: 'text-delta', text: 'Hello' },
      { type: 'text-delta', text: ' "quoted" \\ \n é \u2028 </script>' },
      { type: 'tool-call-start', index: 0, id: 'call_1', name: 'f' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{}' },
      { type: 'text-delta', text: 'after' },
      { type: 'finish', reason: 'stop' },
      { type: 'usage', usage: { inputTokens: 1, cachedInputTokens: 0, outputTokens: 2 }, estimated: false },
    ];
    for (const includeUsage of [false, true]) {
      const options = { id: 'chatcmpl-1', model: 'svc-x', created: 1, includeUsage };
      const encoder = createChatStreamEncoder(options);
      const formatter = createChatChunkFormatter(options);
      for (const part of parts) assert.equal(encoder.encode(part), formatter.format(part).map(encodeSseData).join(''));
    }
  });
});
