import type { ModelConfig } from '../../config/catalog.ts';
import { estimateChatInput } from '../billing/estimate-input.ts';
import type { CanonicalChatRequest } from '../canonical/chat.ts';
import { chatRequestFeatures } from '../canonical/chat-request-features.ts';
import { chatInputExceeds } from '../tokens/count-tokens.ts';

/** What a chat request asks of the model that serves it. */
export interface RequestNeeds {
  readonly images: boolean;
  readonly tools: boolean;
  readonly structuredOutput: boolean;
  readonly stream: boolean;
  /**
   * Whether the client asked the model to reason (an effort other than `none`, or a thinking
   * budget). Every chat model accepts it (docs/api-decisions.md, "Reasoning"), so it is no
   * capability a model must have; svc-auto's rules may route by it.
   */
  readonly reasoning: boolean;
  /** The byte-based input estimate the reservation uses (deliberately high). */
  readonly inputTokens: number;
  /** The output the client asked for (max_tokens), or null. */
  readonly outputTokens: number | null;
  /**
   * Whether the input is over a number of tokens (a context, svc-auto's `min_input_tokens` less
   * one), counted with the tokenizer as the route's own context check counts it (the estimate above
   * is deliberately high, too high to refuse or route by).
   */
  readonly exceedsContext: (context: number) => boolean;
}

export function requestNeeds(request: CanonicalChatRequest): RequestNeeds {
  const f = chatRequestFeatures(request);
  // Counting is bounded by the limit but not free: each limit is counted against once per request.
  const exceeds = new Map<number, boolean>();
  return {
    images: f.images,
    tools: f.tools,
    structuredOutput: f.jsonOutput,
    stream: request.stream,
    reasoning: request.reasoning !== undefined && (request.reasoning.budgetTokens !== undefined || request.reasoning.effort !== 'none'),
    inputTokens: estimateChatInput(request),
    outputTokens: request.maxTokens ?? null,
    exceedsContext: (context) => {
      let known = exceeds.get(context);
      if (known === undefined) exceeds.set(context, (known = chatInputExceeds(request, context)));
      return known;
    },
  };
}

/** Whether a model has every capability the request uses (context and output limits aside). */
export function hasCapabilities(model: ModelConfig, needs: RequestNeeds): boolean {
  const c = model.capabilities;
  return (!needs.images || c.vision) && (!needs.tools || c.tools) && (!needs.structuredOutput || c.jsonOutput) && (!needs.stream || c.streaming);
}

/**
 * Whether the request's input and requested output fit the model's context and output limits. The
 * input is counted only when the estimate (deliberately high) says it does not fit: a prompt the
 * model takes when asked for by name is never refused as too long for it.
 */
export function fitsLimits(model: ModelConfig, needs: RequestNeeds): boolean {
  const output = needs.outputTokens ?? 0;
  if (model.maxOutput !== null && output > model.maxOutput) return false;
  return model.context === null || needs.inputTokens + output <= model.context || !needs.exceedsContext(model.context - output);
}

/**
 * Whether a pipeline's executor takes the request within its own limits: its max output, and its
 * context for the input. `checkedContext` is the pipeline's own context, which the route has
 * already held the input to: an executor whose context is at least that needs no count (so
 * svc-shiplow's, all larger than its 131K, never cost one).
 */
export function fitsExecutor(model: ModelConfig, needs: RequestNeeds, checkedContext: number | null): boolean {
  if (needs.outputTokens !== null && model.maxOutput !== null && needs.outputTokens > model.maxOutput) return false;
  if (model.context === null || (checkedContext !== null && model.context >= checkedContext)) return true;
  return !needs.exceedsContext(model.context);
}

/** The request's needs in a refusal: what no model or executor could take. */
export function describeNeeds(needs: RequestNeeds): string {
  const parts = [
    needs.images ? 'images' : null,
    needs.tools ? 'tools' : null,
    needs.structuredOutput ? 'structured output' : null,
    `about ${needs.inputTokens} input tokens`,
    needs.outputTokens !== null ? `${needs.outputTokens} output tokens` : null,
  ];
  return parts.filter((p) => p !== null).join(', ');
}
