import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultAnthropicMaxTokens } from './anthropic-max-tokens.ts';

describe('defaultAnthropicMaxTokens', () => {
  it('takes the most the upstream model allows, bounded by the brand maximum', () => {
    assert.equal(defaultAnthropicMaxTokens('claude-sonnet-4-5', 1_040_000), 32_000);
    assert.equal(defaultAnthropicMaxTokens('claude-sonnet-4-5', 16_000), 16_000);
    assert.equal(defaultAnthropicMaxTokens('claude-3-5-haiku-20241022', null), 8_192);
    assert.equal(defaultAnthropicMaxTokens('claude-3-haiku-20240307', null), 4_096);
  });
});
