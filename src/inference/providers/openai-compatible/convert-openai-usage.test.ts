import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { convertOpenAIUsage } from './convert-openai-usage.ts';

describe('convertOpenAIUsage', () => {
  it('keeps prompt tokens whole and reads cached tokens from the details', () => {
    assert.deepEqual(convertOpenAIUsage({ prompt_tokens: 2048, completion_tokens: 8, prompt_tokens_details: { cached_tokens: 1920 } }), {
      inputTokens: 2048,
      cachedInputTokens: 1920,
      outputTokens: 8,
    });
  });

  it('reads servers without details, and nothing as null', () => {
    assert.deepEqual(convertOpenAIUsage({ prompt_tokens: 5, completion_tokens: 1, prompt_tokens_details: null }), { inputTokens: 5, cachedInputTokens: 0, outputTokens: 1 });
    assert.equal(convertOpenAIUsage(null), null);
    // Without both counts there is nothing to bill from: the caller estimates.
    assert.equal(convertOpenAIUsage({}), null);
    assert.equal(convertOpenAIUsage({ total_tokens: 52 }), null);
    assert.equal(convertOpenAIUsage({ prompt_tokens: 40 }), null);
    assert.equal(convertOpenAIUsage({ prompt_tokens: '40', completion_tokens: '12' }), null);
    assert.equal(convertOpenAIUsage(undefined), null);
  });

  it('reads the reasoning tokens from the completion details (part of the output tokens)', () => {
    assert.deepEqual(convertOpenAIUsage({ prompt_tokens: 10, completion_tokens: 300, completion_tokens_details: { reasoning_tokens: 256 } }), {
      inputTokens: 10,
      cachedInputTokens: 0,
      outputTokens: 300,
      reasoningTokens: 256,
    });
    // Never more than the output it is part of.
    assert.equal(convertOpenAIUsage({ prompt_tokens: 1, completion_tokens: 5, completion_tokens_details: { reasoning_tokens: 9 } })!.reasoningTokens, 5);
    // A reported 0 is no count (servers that expose reasoning text often report 0): the text is counted instead.
    assert.equal('reasoningTokens' in convertOpenAIUsage({ prompt_tokens: 1, completion_tokens: 5, completion_tokens_details: { reasoning_tokens: 0 } })!, false);
  });
});
