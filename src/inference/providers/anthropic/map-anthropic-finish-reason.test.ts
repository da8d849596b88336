import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { anthropicFinishDetail, mapAnthropicFinishReason } from './map-anthropic-finish-reason.ts';

describe('mapAnthropicFinishReason', () => {
  it('maps stop reasons to OpenAI finish reasons', () => {
    assert.equal(mapAnthropicFinishReason('end_turn'), 'stop');
    assert.equal(mapAnthropicFinishReason('stop_sequence'), 'stop');
    assert.equal(mapAnthropicFinishReason('pause_turn'), 'stop');
    assert.equal(mapAnthropicFinishReason('max_tokens'), 'length');
    assert.equal(mapAnthropicFinishReason('model_context_window_exceeded'), 'length');
    assert.equal(mapAnthropicFinishReason('tool_use'), 'tool_calls');
    assert.equal(mapAnthropicFinishReason('refusal'), 'content_filter');
    assert.equal(mapAnthropicFinishReason(null), 'stop');
  });
});

describe('anthropicFinishDetail', () => {
  it('keeps the matched stop sequence and a full context window, nothing else', () => {
    assert.deepEqual(anthropicFinishDetail('stop_sequence', 'END'), { stopSequence: 'END' });
    assert.deepEqual(anthropicFinishDetail('stop_sequence', null), {});
    assert.deepEqual(anthropicFinishDetail('model_context_window_exceeded', null), { contextWindowExceeded: true });
    assert.deepEqual(anthropicFinishDetail('max_tokens', null), {});
    assert.deepEqual(anthropicFinishDetail('end_turn', 'END'), {});
  });
});
