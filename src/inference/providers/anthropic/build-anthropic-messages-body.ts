import type { CanonicalChatRequest } from '../../canonical/chat.ts';
import { sentStopSequences } from './anthropic-stop-sequences.ts';
import { convertToAnthropicMessages } from './convert-to-anthropic-messages.ts';
import { prepareAnthropicTools } from './prepare-anthropic-tools.ts';

/**
 * Thinking budgets for a reasoning effort given without a budget (the API wants a number). An
 * effort's budget takes at most half of max_tokens, so the answer keeps the other half.
 */
const BUDGET_OF_EFFORT = { minimal: 1024, low: 2048, medium: 8192, high: 16384, xhigh: 32768 } as const;
const MIN_BUDGET = 1024;
/** The smallest top_p the API takes next to thinking. */
const MIN_THINKING_TOP_P = 0.95;

/**
 * Extended thinking for the request's reasoning config: the client's budget (kept below
 * max_tokens, as the API requires), or the budget of its effort (medium when it gave neither)
 * within half of max_tokens; none for effort `none`, or when max_tokens leaves no room for the
 * smallest budget.
 */
export function thinkingBudget(request: CanonicalChatRequest, maxTokens: number): number | null {
  const r = request.reasoning;
  if (r === undefined || (r.effort === 'none' && r.budgetTokens === undefined)) return null;
  const budget =
    r.budgetTokens !== undefined
      ? Math.min(r.budgetTokens, maxTokens - 1)
      : Math.min(BUDGET_OF_EFFORT[r.effort === undefined || r.effort === 'none' ? 'medium' : r.effort], Math.floor(maxTokens / 2));
  return budget >= MIN_BUDGET ? budget : null;
}

/**
 * With thinking on, the API refuses a tool-use continuation, and a prefill (a request that ends on
 * an assistant turn), whose last assistant turn does not start with its (signed) thinking block. A
 * client that did not send the turn's blocks back (a chat client without `reasoning_details`, a
 * responses item without `encrypted_content`, history from another model), or that prefills the
 * answer, gets such a turn without thinking rather than failing.
 */
function continuesWithoutThinking(request: CanonicalChatRequest): boolean {
  const last = request.messages.findLast((m) => m.role === 'assistant');
  if (last === undefined || last.role !== 'assistant') return false;
  // A blank final turn is no prefill: it is left out upstream (convert-to-anthropic-messages.ts).
  if (last.toolCalls.length === 0 && (request.messages.at(-1) !== last || last.content.trim() === '')) return false;
  return !last.reasoning?.some((b) => b.type === 'redacted_thinking' || Boolean(b.signature));
}

/**
 * The /v1/messages body. Differences from OpenAI sampling that are adapted rather than refused:
 * temperature is capped at Anthropic's maximum of 1, and when both temperature and top_p are given
 * only temperature is sent (recent Claude models refuse the pair). With thinking on, temperature
 * and top_k are left out (the API refuses them next to thinking), and top_p is raised to the
 * API's smallest value there, 0.95: the nearest it takes to the client's. Stop sequences of
 * whitespace only, which the API refuses, are left out (the upstream layer cuts at them).
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
  const budget = forced || continuesWithoutThinking(request) ? null : thinkingBudget(request, maxTokens);
  const sampling = budget === null;
  const stop = sentStopSequences(request.stop);
  const body: Record<string, unknown> = {
    model: upstreamModel,
    max_tokens: maxTokens,
    ...(system !== undefined ? { system } : {}),
    messages,
    ...tools,
    ...(budget !== null ? { thinking: { type: 'enabled', budget_tokens: budget } } : {}),
    ...(sampling && request.temperature !== undefined ? { temperature: Math.min(request.temperature, 1) } : {}),
    ...(request.topP !== undefined && (request.temperature === undefined || !sampling) ? { top_p: sampling ? request.topP : Math.max(request.topP, MIN_THINKING_TOP_P) } : {}),
    ...(sampling && request.topK !== undefined ? { top_k: request.topK } : {}),
    ...(stop.length > 0 ? { stop_sequences: stop } : {}),
    ...(request.user !== undefined ? { metadata: { user_id: request.user } } : {}),
    ...(stream ? { stream: true } : {}),
  };
  return { body, jsonToolName };
}
