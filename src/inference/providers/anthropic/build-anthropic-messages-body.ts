import type { CanonicalChatRequest } from '../../canonical/chat.ts';
import { convertToAnthropicMessages } from './convert-to-anthropic-messages.ts';
import { prepareAnthropicTools } from './prepare-anthropic-tools.ts';

/** Thinking budgets for a reasoning effort given without a budget (the API wants a number). */
const BUDGET_OF_EFFORT = { minimal: 1024, low: 2048, medium: 8192, high: 16384 } as const;
const MIN_BUDGET = 1024;

/**
 * Extended thinking for the request's reasoning config: the client's budget, or one for its
 * effort (medium when it gave neither), kept below max_tokens as the API requires; none when
 * max_tokens leaves no room for the smallest budget.
 */
function thinkingBudget(request: CanonicalChatRequest, maxTokens: number): number | null {
  const r = request.reasoning;
  if (r === undefined) return null;
  const wanted = r.budgetTokens ?? BUDGET_OF_EFFORT[r.effort ?? 'medium'];
  const budget = Math.min(wanted, maxTokens - 1);
  return budget >= MIN_BUDGET ? budget : null;
}

/**
 * The /v1/messages body. Differences from OpenAI sampling that are adapted rather than refused:
 * temperature is capped at Anthropic's maximum of 1, and when both temperature and top_p are given
 * only temperature is sent (recent Claude models refuse the pair). With thinking on, temperature
 * and top_k are left out (the API refuses them next to thinking).
 */
export function buildAnthropicMessagesBody(
  request: CanonicalChatRequest,
  upstreamModel: string,
  stream: boolean,
  defaultMaxTokens: number,
): { body: Record<string, unknown>; jsonToolName: string | null } {
  const { system, messages } = convertToAnthropicMessages(request.messages);
  const { jsonToolName, ...tools } = prepareAnthropicTools(request);
  const maxTokens = request.maxTokens ?? defaultMaxTokens;
  // The API refuses thinking next to a forced tool choice (how structured output is asked for).
  const forced = tools.tool_choice?.type === 'any' || tools.tool_choice?.type === 'tool';
  const budget = forced ? null : thinkingBudget(request, maxTokens);
  const sampling = budget === null;
  const body: Record<string, unknown> = {
    model: upstreamModel,
    max_tokens: maxTokens,
    ...(system !== undefined ? { system } : {}),
    messages,
    ...tools,
    ...(budget !== null ? { thinking: { type: 'enabled', budget_tokens: budget } } : {}),
    ...(sampling && request.temperature !== undefined ? { temperature: Math.min(request.temperature, 1) } : {}),
    ...(request.topP !== undefined && (request.temperature === undefined || !sampling) ? { top_p: request.topP } : {}),
    ...(sampling && request.topK !== undefined ? { top_k: request.topK } : {}),
    ...(request.stop.length > 0 ? { stop_sequences: request.stop } : {}),
    ...(request.user !== undefined ? { metadata: { user_id: request.user } } : {}),
    ...(stream ? { stream: true } : {}),
  };
  return { body, jsonToolName };
}
