import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProviderFailure } from '../provider-failure.ts';
import { failIfErrorFinish, mapOpenAIFinishReason } from './map-openai-finish-reason.ts';

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

  it("reads a router's finish_reason 'error' as a 502 failure, every other reason as none", () => {
    assert.throws(() => failIfErrorFinish('error'), (e: unknown) => e instanceof ProviderFailure && e.status === 502);
    for (const r of ['stop', 'length', 'eos', null, undefined]) failIfErrorFinish(r);
  });
});
