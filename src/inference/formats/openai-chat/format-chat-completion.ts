import type { CanonicalChatResponse } from '../../canonical/chat.ts';
import type { ReasoningSealer } from '../reasoning-content.ts';
import type { TurnIdentity } from '../stream-encoder.ts';
import { customInputOf } from '../openai-responses/client-tools.ts';
import { reasoningDetailsOf } from './reasoning-details.ts';
import { toOpenAIUsage } from './to-openai-usage.ts';

/** A request without custom tools: every call is a function call. */
export const NO_CUSTOM_TOOLS: ReadonlySet<string> = new Set();

/**
 * A `chat.completion` object. `content` is null when the model only called tools or refused (the
 * refusal is `refusal`), as OpenAI does.
 * Reasoning, when there was any, is `reasoning` (its text) and `reasoning_details` (its blocks,
 * sealed by `sealer`: reasoning-details.ts). A call of one of `customTools` is a `custom` tool
 * call of the input string (client-tools.ts).
 */
export function formatChatCompletion(response: CanonicalChatResponse, identity: TurnIdentity, sealer: ReasoningSealer, customTools: ReadonlySet<string> = NO_CUSTOM_TOOLS) {
  const details = reasoningDetailsOf(response, sealer);
  const toolCalls = response.toolCalls.map((c) =>
    customTools.has(c.name)
      ? { id: c.id, type: 'custom' as const, custom: { name: c.name, input: customInputOf(c.arguments) } }
      : { id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } },
  );
  return {
    id: identity.id,
    object: 'chat.completion' as const,
    created: identity.created,
    model: identity.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant' as const,
          content: response.text === '' && (toolCalls.length > 0 || response.refusal !== undefined) ? null : response.text,
          ...(response.reasoning !== '' ? { reasoning: response.reasoning } : {}),
          ...(details ? { reasoning_details: details } : {}),
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          refusal: response.refusal ?? null,
        },
        logprobs: null,
        finish_reason: response.finishReason,
      },
    ],
    usage: toOpenAIUsage(response.usage),
  };
}
