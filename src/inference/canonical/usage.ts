/**
 * Token counts of one upstream call, in the one shape billing reads.
 * `inputTokens` includes the cached ones; `cachedInputTokens` is the part of it read from a prompt
 * cache (billed at the cached-input price), so uncached input = inputTokens - cachedInputTokens.
 */
export interface Usage {
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
}

export const ZERO_USAGE: Usage = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };
