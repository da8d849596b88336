import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mapAnthropicFinishReason } from './map-anthropic-finish-reason.ts';

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
