import type { ModelConfig } from '../../config/catalog.ts';
import { computeCost } from './cost.ts';

/**
 * Output tokens a request without max_tokens is always allowed to hold for (when the balance
 * covers them), however small its share of the balance; see holdAmount.
 */
export const DEFAULT_OUTPUT_RESERVATION_TOKENS = 4096;

/** How a chat hold turns back into the output tokens it pays for (outputTokensCovered). */
export interface OutputHold {
  /** The most output tokens the request allows: max_tokens, or the model's max output. */
  readonly maxTokens: number;
  /** The request gave no max_tokens: its hold is bounded by a share of the balance (holdAmount). */
  readonly open: boolean;
  /** The input part of the cost before the division by 1,000 (tokens x price per 1K). */
  readonly inputPerThousand: bigint;
  /** Micro-credits per 1,000 output tokens. */
  readonly pricePerThousand: bigint;
  /** The cost with DEFAULT_OUTPUT_RESERVATION_TOKENS of output (or maxTokens, when fewer). */
  readonly typical: bigint;
}

export interface ChargeEstimate {
  /** Micro-credits the worst case of the request costs: input plus its whole output allowance. */
  readonly estimate: bigint;
  /** Below this available balance the request is refused with 402 (always at least 1). */
  readonly minimum: bigint;
  /** Chat requests: how a smaller hold caps the output sent upstream. */
  readonly output?: OutputHold;
}

export interface EstimateInput {
  /** Input tokens, counted or estimated (estimateTokensFromText). */
  readonly inputTokens: number;
  /** The request's max_tokens / max_output_tokens, if it gave one. */
  readonly maxOutputTokens?: number | null;
  /** Images asked for (image generation). */
  readonly images?: number;
  /**
   * Input tokens the upstream may count beyond inputTokens (prompts a provider adds, estimates
   * that fall short). Held when the balance covers them, never part of the minimum nor taken
   * from the output a partial hold pays for.
   */
  readonly inputMarginTokens?: number;
}

/**
 * The worst case a request allows: its input at the input price, plus its output allowance
 * (max_tokens bounded by the model's max output; without max_tokens, the model's max output) at
 * the output price, plus its images. The minimum is the input and image part: an account that
 * cannot pay for reading the prompt is refused; one that can but not for the whole allowance
 * holds what it has (holdAmount) and the upstream is asked for no more output than that covers
 * (outputTokensCovered). Input beyond the model's context is not counted (the upstream refuses it).
 */
export function estimateCharge(model: ModelConfig, req: EstimateInput): ChargeEstimate {
  const inputTokens = Math.max(0, Math.min(Math.ceil(req.inputTokens), model.context ?? Number.MAX_SAFE_INTEGER));
  const images = Math.max(0, Math.ceil(req.images ?? 0));
  const floor = computeCost(model.pricing, { inputTokens, images });
  const minimum = floor > 0n ? floor : 1n;
  if (model.type !== 'chat') return { estimate: computeCost(model.pricing, { inputTokens, images }), minimum };
  const open = req.maxOutputTokens === undefined || req.maxOutputTokens === null;
  // A model without a max output still cannot answer more than its context holds.
  const modelCap = model.maxOutput ?? (model.context !== null ? Math.max(1, model.context - inputTokens) : DEFAULT_OUTPUT_RESERVATION_TOKENS);
  const maxTokens = Math.max(1, Math.min(open ? modelCap : Math.ceil(req.maxOutputTokens!), modelCap));
  const heldInput = inputTokens + Math.max(0, Math.ceil(req.inputMarginTokens ?? 0));
  const estimate = computeCost(model.pricing, { inputTokens: heldInput, outputTokens: maxTokens, images });
  const typical = computeCost(model.pricing, { inputTokens: heldInput, outputTokens: Math.min(maxTokens, DEFAULT_OUTPUT_RESERVATION_TOKENS), images });
  return {
    estimate,
    minimum,
    output: { maxTokens, open, inputPerThousand: BigInt(inputTokens) * model.pricing.input, pricePerThousand: model.pricing.output, typical },
  };
}

/**
 * What a request holds out of `available` micro-credits, or null for 402. The worst case when
 * the balance covers it; otherwise all of the balance (the upstream then gets a smaller
 * max_tokens). A request without max_tokens holds at most half of the available balance (but
 * never less than its typical cost): otherwise the first such request would hold a whole small
 * balance for a model whose max output costs thousands of credits, and every request beside it
 * would get 402. Concurrent open requests so take a half, a quarter, ... and each is capped to
 * what its share pays for; the next one that finds less than its minimum waits for them to give
 * credits back rather than 402 (Billing.reserve).
 */
export function holdAmount(charge: ChargeEstimate, available: bigint): bigint | null {
  if (available <= 0n || available < charge.minimum) return null;
  let want = charge.estimate;
  if (charge.output?.open) {
    const half = available / 2n;
    const share = half > charge.output.typical ? half : charge.output.typical;
    if (share < want) want = share;
  }
  return want < available ? want : available;
}

/**
 * The output tokens a hold of `held` pays for once the input is paid, at least 1 (a hold that
 * covers only the input still asks for one token; that token is the most the operator can lose
 * on it when the input estimate was right). Null for requests without output (not chat).
 */
export function outputTokensCovered(charge: ChargeEstimate, held: bigint): number | null {
  const o = charge.output;
  if (!o) return null;
  if (o.pricePerThousand === 0n) return o.maxTokens;
  const covered = (held * 1000n - o.inputPerThousand) / o.pricePerThousand;
  if (covered < 1n) return 1;
  return covered >= BigInt(o.maxTokens) ? o.maxTokens : Number(covered);
}

/**
 * A deliberately high token estimate from text: one token per 3 UTF-8 bytes. Tokenizers average
 * about 4 bytes per token on English and 3 on CJK, so this over-reserves ordinary text a little;
 * billing always uses the upstream's count.
 */
export function estimateTokensFromText(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 3);
}
