import type { ModelPricing } from '../../config/catalog.ts';

/**
 * What a request consumed, as the upstream reported it (or as estimated). `inputTokens`
 * counts every input token, cached ones included (OpenAI's `prompt_tokens`); an adapter whose
 * upstream reports cache reads apart (Anthropic's `cache_read_input_tokens`) adds them in.
 */
export interface BillableUsage {
  readonly inputTokens: number;
  /** The part of inputTokens served from the upstream's prompt cache. */
  readonly cachedInputTokens?: number;
  readonly outputTokens?: number;
  /** Images generated. */
  readonly images?: number;
}

function count(n: number | undefined, field: string): bigint {
  const v = n ?? 0;
  if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`${field} must be a non-negative integer, got ${v}`);
  return BigInt(v);
}

/**
 * The cost in micro-credits. Prices are micro-credits per 1,000 tokens (per image for images),
 * so the token part is summed exactly and divided by 1,000 once, rounding up: a request is never
 * billed less than it used and at most one micro-credit more. Cached input tokens are priced at
 * the cached-input price, the rest of the input at the input price.
 */
export function computeCost(pricing: ModelPricing, usage: BillableUsage): bigint {
  const input = count(usage.inputTokens, 'inputTokens');
  const cachedRaw = count(usage.cachedInputTokens, 'cachedInputTokens');
  // An upstream that reports more cached tokens than input tokens is billed as all-cached.
  const cached = cachedRaw > input ? input : cachedRaw;
  const output = count(usage.outputTokens, 'outputTokens');
  const images = count(usage.images, 'images');
  const perThousand = (input - cached) * pricing.input + cached * pricing.cachedInput + output * pricing.output;
  return ceilDiv(perThousand, 1000n) + images * pricing.perImage;
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}
