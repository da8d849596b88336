import type { Usage } from '../../canonical/usage.ts';

const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);

/**
 * OpenAI `usage` -> canonical; null when absent. `prompt_tokens` already includes cached tokens.
 * A usage object without both counts is no report either: read as zeros it would bill the answer
 * nothing, where the tokenizer's estimate bills what was sent and produced.
 */
export function convertOpenAIUsage(usage: unknown): Usage | null {
  if (typeof usage !== 'object' || usage === null) return null;
  const reported = usage as { prompt_tokens?: unknown; completion_tokens?: unknown };
  if (typeof reported.prompt_tokens !== 'number' || typeof reported.completion_tokens !== 'number') return null;
  const u = usage as {
    prompt_tokens?: unknown;
    completion_tokens?: unknown;
    prompt_tokens_details?: { cached_tokens?: unknown } | null;
    completion_tokens_details?: { reasoning_tokens?: unknown } | null;
  };
  const outputTokens = count(u.completion_tokens);
  // `completion_tokens` includes the reasoning tokens. Servers that expose reasoning text often
  // report 0 here (or nothing): only a positive count is taken, otherwise the text is counted.
  const reasoning = Math.min(count(u.completion_tokens_details?.reasoning_tokens), outputTokens);
  return {
    inputTokens: count(u.prompt_tokens),
    cachedInputTokens: count(u.prompt_tokens_details?.cached_tokens),
    outputTokens,
    ...(reasoning > 0 ? { reasoningTokens: reasoning } : {}),
  };
}
