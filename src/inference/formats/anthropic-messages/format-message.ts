import { refusalAsText, textAroundCalls, type CanonicalChatResponse, type ToolCall } from '../../canonical/chat.ts';
import type { ReasoningSealer } from '../reasoning-content.ts';
import type { TurnIdentity } from '../stream-encoder.ts';
import { sealBlockValue } from './sealed-tokens.ts';
import { toAnthropicMessageUsage, toAnthropicStopReason, toolInput } from './to-anthropic-usage.ts';

/**
 * A canonical answer as a Messages API `message`: reasoning blocks first (with their signatures
 * when the upstream gave them; reasoning from an upstream without signatures gets an empty one),
 * then the text (as the upstream's blocks with their citations when it cited) and the tool calls,
 * text written after a call after it, as the model gave them. Signatures and redacted data are the
 * service's sealed tokens of the upstream's (sealed-tokens.ts), under the account's `sealer`.
 */
export function formatMessage(answer: CanonicalChatResponse, identity: TurnIdentity, sealer: ReasoningSealer) {
  // The API's refusal is `stop_reason: "refusal"` with what the model said as text.
  const response = refusalAsText(answer);
  const reasoning =
    response.reasoningBlocks ??
    (response.reasoning === '' ? [] : [{ type: 'thinking' as const, thinking: response.reasoning, signature: '' }]);
  const content: object[] = reasoning.map((b) =>
    b.type === 'thinking'
      ? { type: 'thinking', thinking: b.thinking, signature: sealBlockValue('signature', b.signature ?? '', sealer) }
      : { type: 'redacted_thinking', data: sealBlockValue('data', b.data, sealer) },
  );
  const toolUse = (c: ToolCall) => ({ type: 'tool_use', id: c.id, name: c.name, input: toolInput(c.arguments) });
  if (response.textBlocks) {
    for (const b of response.textBlocks) content.push({ type: 'text', text: b.text, ...(b.citations ? { citations: b.citations } : {}) });
    content.push(...response.toolCalls.map(toolUse));
  } else {
    // Text the model wrote after a call follows it, as in the stream of the same answer.
    const pieces = textAroundCalls(response);
    pieces.forEach((text, i) => {
      if (text !== '') content.push({ type: 'text', text });
      const call = response.toolCalls[i];
      if (call) content.push(toolUse(call));
    });
  }
  return {
    id: identity.id,
    type: 'message' as const,
    role: 'assistant' as const,
    model: identity.model,
    content,
    stop_reason: toAnthropicStopReason(response.finishReason, response),
    stop_sequence: response.stopSequence ?? null,
    usage: toAnthropicMessageUsage(response.usage),
  };
}
