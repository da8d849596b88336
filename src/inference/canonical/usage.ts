/**
 * Token counts of one upstream call, in the one shape billing reads.
 * `inputTokens` includes the cached ones; `cachedInputTokens` is the part of it read from a prompt
 * cache (billed at the cached-input price), so uncached input = inputTokens - cachedInputTokens.
 */
export interface Usage {
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
  /**
   * The part of inputTokens written to a prompt cache (Anthropic `cache_creation_input_tokens`),
   * reported back to clients; billed as uncached input.
   */
  readonly cacheWriteInputTokens?: number;
  /**
   * The part of cacheWriteInputTokens written for an hour (Anthropic's
   * `cache_creation.ephemeral_1h_input_tokens`); the rest was written for five minutes. Reported
   * back to Messages clients; billed as the rest.
   */
  readonly cacheWrite1hInputTokens?: number;
  /**
   * The part of outputTokens the model spent reasoning, reported to clients (billed as output,
   * which already counts it): the upstream's own count, or an estimate from the reasoning text it
   * returned when it reports none (Anthropic), see docs/api-decisions.md.
   */
  readonly reasoningTokens?: number;
}

export const ZERO_USAGE: Usage = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };
