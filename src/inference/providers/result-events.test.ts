import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventsOfResult } from './result-events.ts';

describe('eventsOfResult', () => {
  it('gives reasoning blocks (signature after the thinking, redacted data), text, tool calls, finish and usage in stream order', () => {
    const usage = { inputTokens: 10, cachedInputTokens: 2, outputTokens: 5 };
    assert.deepEqual(
      eventsOfResult({
        text: 'Hi',
        reasoning: 'hmm',
        reasoningBlocks: [
          { type: 'thinking', thinking: 'hmm', signature: 'sig' },
          { type: 'redacted_thinking', data: 'xyz' },
        ],
        toolCalls: [
          { id: 'call_1', name: 'a', arguments: '{"x":1}' },
          { id: 'call_2', name: 'b', arguments: '{}' },
        ],
        finishReason: 'tool_calls',
        usage,
      }),
      [
        { type: 'reasoning-delta', text: 'hmm' },
        { type: 'reasoning-delta', text: '', signature: 'sig' },
        { type: 'reasoning-delta', text: '', redacted: 'xyz' },
        { type: 'text-delta', text: 'Hi' },
        { type: 'tool-call-start', index: 0, id: 'call_1', name: 'a' },
        { type: 'tool-call-delta', index: 0, argumentsDelta: '{"x":1}' },
        { type: 'tool-call-start', index: 1, id: 'call_2', name: 'b' },
        { type: 'tool-call-delta', index: 1, argumentsDelta: '{}' },
        { type: 'finish', reason: 'tool_calls' },
        { type: 'reported-usage', usage },
      ],
    );
  });

  it('reasoning without blocks is one delta; an empty answer is its finish alone; unreported usage is left to the estimate', () => {
    assert.deepEqual(eventsOfResult({ text: '', reasoning: 'r', toolCalls: [], finishReason: 'stop', usage: null }), [
      { type: 'reasoning-delta', text: 'r' },
      { type: 'finish', reason: 'stop' },
    ]);
    assert.deepEqual(eventsOfResult({ text: '', reasoning: '', toolCalls: [], finishReason: 'stop', stopSequence: 'END', usage: null }), [
      { type: 'finish', reason: 'stop', stopSequence: 'END' },
    ]);
  });
});
