import type { ModelConfig } from '../../config/catalog.ts';
import { computeCost } from './cost.ts';

/**
 * Output tokens reserved for a request that does not say how many it wants (no max_tokens):
 * reserving the model's whole max output (up to 1.04M tokens) would stop an account from running
 * two requests at once. Output beyond this is still billed; it is what may overdraw a balance.
 */
export const DEFAULT_OUTPUT_RESERVATION_TOKENS = 4096;

export interface ChargeEstimate {
  /** Micro-credits to hold while the request runs: the most it is expected to cost. */
  readonly estimate: bigint;
  /** Below this available balance the request is refused with 402 (always at least 1). */
  readonly minimum: bigint;
}

export interface EstimateInput {
  /** Input tokens, counted or estimated (estimateTokensFromText). */
  readonly inputTokens: number;
  /** The request's max_tokens / max_output_tokens, if it gave one. */
  readonly maxOutputTokens?: number | null;
  /** Images asked for (image generation). */
  readonly images?: number;
}

/**
 * The reservation for a request: its input at the input price, plus its output cap (max_tokens
 * bounded by the model's max output, or DEFAULT_OUTPUT_RESERVATION_TOKENS) at the output price,
 * plus its images. The minimum is the input and image part: an account that cannot pay for
 * reading the prompt is refused; one that can but not for the whole output cap is let in with a
 * partial reservation. Input beyond the model's context is not counted (the upstream refuses it).
 */
export function estimateCharge(model: ModelConfig, req: EstimateInput): ChargeEstimate {
  const inputTokens = Math.max(0, Math.min(Math.ceil(req.inputTokens), model.context ?? Number.MAX_SAFE_INTEGER));
  const hasOutput = model.type === 'chat';
  const wanted = req.maxOutputTokens ?? DEFAULT_OUTPUT_RESERVATION_TOKENS;
  const cap = model.maxOutput ?? Number.MAX_SAFE_INTEGER;
  const outputTokens = hasOutput ? Math.max(0, Math.min(Math.ceil(wanted), cap)) : 0;
  const images = Math.max(0, Math.ceil(req.images ?? 0));
  const estimate = computeCost(model.pricing, { inputTokens, outputTokens, images });
  const floor = computeCost(model.pricing, { inputTokens, images });
  return { estimate, minimum: floor > 0n ? floor : 1n };
}

/**
 * A deliberately high token estimate from text: one token per 3 UTF-8 bytes. Tokenizers average
 * about 4 bytes per token on English and 3 on CJK, so this over-reserves ordinary text a little;
 * billing always uses the upstream's count.
 */
export function estimateTokensFromText(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 3);
}
