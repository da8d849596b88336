import type { FinishDetail, FinishReason } from '../../canonical/chat.ts';
import type { Usage } from '../../canonical/usage.ts';

export interface AnthropicUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  output_tokens: number;
}

/** A message's usage: the counts, the cache writes by ttl, and the tier (always standard here). */
export interface AnthropicMessageUsage extends AnthropicUsage {
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
  service_tier: 'standard';
}

/**
 * Canonical usage in the Messages API's shape, where `input_tokens` excludes cache reads and cache
 * writes (canonical input includes both): the cumulative counts a stream's `message_delta` carries.
 */
export function toAnthropicUsage(usage: Usage): AnthropicUsage {
  const written = usage.cacheWriteInputTokens ?? 0;
  return {
    input_tokens: Math.max(0, usage.inputTokens - usage.cachedInputTokens - written),
    cache_creation_input_tokens: written,
    cache_read_input_tokens: usage.cachedInputTokens,
    output_tokens: usage.outputTokens,
  };
}

/**
 * A whole message's usage, as the API answers it: the counts, `cache_creation` (the writes by ttl;
 * writes the upstream did not break down were for five minutes, the default), `service_tier`.
 */
export function toAnthropicMessageUsage(usage: Usage): AnthropicMessageUsage {
  const counts = toAnthropicUsage(usage);
  const hour = usage.cacheWrite1hInputTokens ?? 0;
  return {
    input_tokens: counts.input_tokens,
    cache_creation_input_tokens: counts.cache_creation_input_tokens,
    cache_read_input_tokens: counts.cache_read_input_tokens,
    cache_creation: { ephemeral_5m_input_tokens: counts.cache_creation_input_tokens - hour, ephemeral_1h_input_tokens: hour },
    output_tokens: counts.output_tokens,
    service_tier: 'standard',
  };
}

export type AnthropicStopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'refusal' | 'model_context_window_exceeded';

export function toAnthropicStopReason(reason: FinishReason, { stopSequence, contextWindowExceeded }: FinishDetail): AnthropicStopReason {
  switch (reason) {
    case 'length':
      return contextWindowExceeded ? 'model_context_window_exceeded' : 'max_tokens';
    case 'tool_calls':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    case 'stop':
      return stopSequence !== undefined ? 'stop_sequence' : 'end_turn';
  }
}

/** Tool arguments as the `input` object; arguments that are not a JSON object become `{}`. */
export function toolInput(args: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(args);
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // a model's malformed arguments have no object form
  }
  return {};
}
