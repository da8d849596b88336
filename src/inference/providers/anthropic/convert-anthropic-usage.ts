import type { Usage } from '../../canonical/usage.ts';

interface AnthropicUsage {
  input_tokens?: unknown;
  cache_read_input_tokens?: unknown;
  cache_creation_input_tokens?: unknown;
  cache_creation?: { ephemeral_1h_input_tokens?: unknown } | null;
  output_tokens?: unknown;
}

const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);

/**
 * Anthropic's `input_tokens` excludes cache reads and cache writes; canonical input includes both.
 * Cache reads are the cached tokens. Cache writes (reported as `cacheWriteInputTokens`) are billed
 * as ordinary (uncached) input: charging the input price keeps them billed without a third price
 * per model (see docs/messages.md).
 */
export function convertAnthropicInput(usage: AnthropicUsage): Pick<Usage, 'inputTokens' | 'cachedInputTokens' | 'cacheWriteInputTokens' | 'cacheWrite1hInputTokens'> {
  const cached = count(usage.cache_read_input_tokens);
  const written = count(usage.cache_creation_input_tokens);
  // The hour-long part of the writes, never more than the writes (the rest were for five minutes).
  const hour = Math.min(written, count(usage.cache_creation?.ephemeral_1h_input_tokens));
  return {
    inputTokens: count(usage.input_tokens) + cached + written,
    cachedInputTokens: cached,
    ...(written > 0 ? { cacheWriteInputTokens: written } : {}),
    ...(hour > 0 ? { cacheWrite1hInputTokens: hour } : {}),
  };
}

/** A whole answer's usage; without both counts it is no report (estimated), as convertOpenAIUsage's. */
export function convertAnthropicUsage(usage: unknown): Usage | null {
  if (typeof usage !== 'object' || usage === null) return null;
  const u = usage as AnthropicUsage;
  if (typeof u.input_tokens !== 'number' || typeof u.output_tokens !== 'number') return null;
  return Object.assign(convertAnthropicInput(u), { outputTokens: count(u.output_tokens) });
}

/** The counts a streamed usage object reports: input only when it carries `input_tokens`. */
export function convertAnthropicUsageReport(usage: unknown, withOutput: boolean): Partial<Usage> | null {
  if (typeof usage !== 'object' || usage === null) return null;
  const u = usage as AnthropicUsage;
  const report: Partial<Usage> = {
    ...(u.input_tokens !== undefined && u.input_tokens !== null ? convertAnthropicInput(u) : {}),
    ...(withOutput && u.output_tokens !== undefined ? { outputTokens: count(u.output_tokens) } : {}),
  };
  return Object.keys(report).length > 0 ? report : null;
}
