import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { convertAnthropicUsage, convertAnthropicUsageReport } from './convert-anthropic-usage.ts';

describe('Anthropic usage', () => {
  it('adds cache reads and writes to input; reads are the cached tokens', () => {
    assert.deepEqual(
      convertAnthropicUsage({ input_tokens: 100, cache_read_input_tokens: 1920, cache_creation_input_tokens: 28, output_tokens: 8 }),
      { inputTokens: 2048, cachedInputTokens: 1920, cacheWriteInputTokens: 28, outputTokens: 8 },
    );
    assert.deepEqual(convertAnthropicUsage({ input_tokens: 5, output_tokens: 1 }), { inputTokens: 5, cachedInputTokens: 0, outputTokens: 1 });
    assert.equal(convertAnthropicUsage(undefined), null);
    // Without both counts there is nothing to bill from: the caller estimates (as for OpenAI's).
    assert.equal(convertAnthropicUsage({}), null);
    assert.equal(convertAnthropicUsage({ input_tokens: 5 }), null);
    assert.equal(convertAnthropicUsage({ output_tokens: '1', input_tokens: 5 }), null);
  });

  it('reports partial stream usage: input at the start, output (and input if given) at the end', () => {
    assert.deepEqual(convertAnthropicUsageReport({ input_tokens: 10, cache_read_input_tokens: 4, output_tokens: 1 }, false), {
      inputTokens: 14,
      cachedInputTokens: 4,
    });
    assert.deepEqual(convertAnthropicUsageReport({ output_tokens: 42 }, true), { outputTokens: 42 });
    assert.equal(convertAnthropicUsageReport({}, true), null);
  });

  it('keeps the hour-long part of the cache writes, never more than the writes', () => {
    const u = (h1: unknown) => convertAnthropicUsage({ input_tokens: 10, cache_creation_input_tokens: 30, cache_creation: { ephemeral_5m_input_tokens: 5, ephemeral_1h_input_tokens: h1 }, output_tokens: 1 });
    assert.equal(u(25)?.cacheWrite1hInputTokens, 25);
    assert.equal(u(99)?.cacheWrite1hInputTokens, 30);
    assert.equal(u(0)?.cacheWrite1hInputTokens, undefined);
    assert.equal(u('x')?.cacheWrite1hInputTokens, undefined);
    assert.equal(convertAnthropicUsage({ input_tokens: 10, cache_creation_input_tokens: 30, cache_creation: null, output_tokens: 1 })?.cacheWrite1hInputTokens, undefined);
  });
});
