import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StreamCollector } from './collect-stream.ts';

describe('StreamCollector', () => {
  it('is unfinished until the finish part', () => {
    const c = new StreamCollector();
    c.add({ type: 'text-delta', text: 'a' });
    assert.equal(c.response(), null);
  });

  it('gathers text, reasoning blocks, tool calls, the finish and usage', () => {
    const c = new StreamCollector();
    c.add({ type: 'reasoning-delta', text: 'think' });
    c.add({ type: 'reasoning-delta', text: 'ing', signature: 'sig' });
    c.add({ type: 'reasoning-delta', text: '', redacted: 'opaque' });
    c.add({ type: 'text-delta', text: 'Hel' });
    c.add({ type: 'text-delta', text: 'lo' });
    c.add({ type: 'tool-call-start', index: 0, id: 'call_a', name: 'f' });
    c.add({ type: 'tool-call-delta', index: 0, argumentsDelta: '{"x":' });
    c.add({ type: 'tool-call-delta', index: 0, argumentsDelta: '1}' });
    c.add({ type: 'finish', reason: 'tool_calls' });
    c.add({ type: 'usage', usage: { inputTokens: 3, cachedInputTokens: 0, outputTokens: 4 }, estimated: false });
    assert.deepEqual(c.response(), {
      text: 'Hello',
      reasoning: 'thinking',
      reasoningBlocks: [
        { type: 'thinking', thinking: 'thinking', signature: 'sig' },
        { type: 'redacted_thinking', data: 'opaque' },
      ],
      toolCalls: [{ id: 'call_a', name: 'f', arguments: '{"x":1}' }],
      finishReason: 'tool_calls',
      usage: { inputTokens: 3, cachedInputTokens: 0, outputTokens: 4 },
      usageEstimated: false,
    });
  });

  it('keeps an unsigned thinking block and the stop sequence', () => {
    const c = new StreamCollector();
    c.add({ type: 'reasoning-delta', text: 'hmm' });
    c.add({ type: 'text-delta', text: 'x' });
    c.add({ type: 'finish', reason: 'stop', stopSequence: 'END' });
    const r = c.response()!;
    assert.deepEqual(r.reasoningBlocks, [{ type: 'thinking', thinking: 'hmm' }]);
    assert.equal(r.stopSequence, 'END');
  });

  it('keeps the text as the upstream blocks when one is cited, as a non-streamed answer has them', () => {
    const c = new StreamCollector();
    const cite = (n: number) => ({ type: 'char_location', cited_text: `c${n}`, document_index: 0, start_char_index: n, end_char_index: n + 1 });
    c.add({ type: 'text-delta', text: 'According to the file, ' });
    c.add({ type: 'text-break' });
    c.add({ type: 'citation', citation: cite(1) });
    c.add({ type: 'citation', citation: cite(2) });
    c.add({ type: 'text-delta', text: 'it is ' });
    c.add({ type: 'text-delta', text: 'red' });
    c.add({ type: 'citation', citation: cite(3) });
    c.add({ type: 'text-delta', text: ' and round' });
    c.add({ type: 'text-break' });
    c.add({ type: 'text-delta', text: '.' });
    c.add({ type: 'finish', reason: 'stop' });
    const r = c.response()!;
    assert.equal(r.text, 'According to the file, it is red and round.');
    assert.deepEqual(r.textBlocks, [
      { text: 'According to the file, ' },
      { text: 'it is red', citations: [cite(1), cite(2)] },
      { text: ' and round', citations: [cite(3)] },
      { text: '.' },
    ]);
  });

  it('gives no text blocks when nothing is cited', () => {
    const c = new StreamCollector();
    c.add({ type: 'text-delta', text: 'plain' });
    c.add({ type: 'finish', reason: 'stop' });
    assert.equal(c.response()!.textBlocks, undefined);
  });
});
