import type { Usage } from '../../canonical/usage.ts';

/**
 * The OpenAI `usage` object; `prompt_tokens` includes the cached ones and `completion_tokens` the
 * reasoning ones, as OpenAI reports them.
 */
export function toOpenAIUsage(usage: Usage) {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedInputTokens },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
  };
}
