import type { CanonicalChatRequest } from '../../canonical/chat.ts';
import { convertToAnthropicMessages } from './convert-to-anthropic-messages.ts';
import { prepareAnthropicTools } from './prepare-anthropic-tools.ts';

/**
 * The /v1/messages body. Differences from OpenAI sampling that are adapted rather than refused:
 * temperature is capped at Anthropic's maximum of 1, and when both temperature and top_p are given
 * only temperature is sent (recent Claude models refuse the pair).
 */
export function buildAnthropicMessagesBody(
  request: CanonicalChatRequest,
  upstreamModel: string,
  stream: boolean,
  defaultMaxTokens: number,
): { body: Record<string, unknown>; jsonToolName: string | null } {
  const { system, messages } = convertToAnthropicMessages(request.messages);
  const { jsonToolName, ...tools } = prepareAnthropicTools(request);
  const body: Record<string, unknown> = {
    model: upstreamModel,
    max_tokens: request.maxTokens ?? defaultMaxTokens,
    ...(system !== undefined ? { system } : {}),
    messages,
    ...tools,
    ...(request.temperature !== undefined ? { temperature: Math.min(request.temperature, 1) } : {}),
    ...(request.topP !== undefined && request.temperature === undefined ? { top_p: request.topP } : {}),
    ...(request.stop.length > 0 ? { stop_sequences: request.stop } : {}),
    ...(request.user !== undefined ? { metadata: { user_id: request.user } } : {}),
    ...(stream ? { stream: true } : {}),
  };
  return { body, jsonToolName };
}
