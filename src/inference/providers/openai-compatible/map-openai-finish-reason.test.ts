import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mapOpenAIFinishReason } from './map-openai-finish-reason.ts';

describe('mapOpenAIFinishReason', () => {
  it('maps OpenAI reasons and treats unknown ones as stop', () => {
    assert.equal(mapOpenAIFinishReason('stop'), 'stop');
    assert.equal(mapOpenAIFinishReason('length'), 'length');
    assert.equal(mapOpenAIFinishReason('tool_calls'), 'tool_calls');
    assert.equal(mapOpenAIFinishReason('function_call'), 'tool_calls');
    assert.equal(mapOpenAIFinishReason('content_filter'), 'content_filter');
    assert.equal(mapOpenAIFinishReason('eos'), 'stop');
    assert.equal(mapOpenAIFinishReason(null), 'stop');
  });
});
