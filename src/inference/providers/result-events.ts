import { finishDetail, textAroundCalls } from '../canonical/chat.ts';
import type { ProviderChatResult, ProviderStreamEvent } from './provider-stream.ts';

/**
 * A whole answer as the stream events its upstream would have sent, in the order a stream gives
 * them (reasoning, text and tool calls in the model's order, finish, usage), so that an answer read whole can be served
 * to a client that asked for a stream. Each piece is one delta: nothing was generated in between.
 */
export function eventsOfResult(result: ProviderChatResult): ProviderStreamEvent[] {
  const out: ProviderStreamEvent[] = [];
  if (result.reasoningBlocks) {
    for (const block of result.reasoningBlocks) {
      if (block.type === 'redacted_thinking') {
        out.push({ type: 'reasoning-delta', text: '', redacted: block.data });
        continue;
      }
      if (block.thinking !== '') out.push({ type: 'reasoning-delta', text: block.thinking });
      // The signature closes the thinking block, as Anthropic's signature_delta does.
      if (block.signature) out.push({ type: 'reasoning-delta', text: '', signature: block.signature });
    }
  } else if (result.reasoning !== '') {
    out.push({ type: 'reasoning-delta', text: result.reasoning });
  }
  if (result.textBlocks) {
    for (const block of result.textBlocks) {
      for (const citation of block.citations ?? []) out.push({ type: 'citation', citation });
      if (block.text !== '') out.push({ type: 'text-delta', text: block.text });
      if (block.citations) out.push({ type: 'text-break' });
    }
  }
  // Text the model wrote after a call follows it, as the upstream's own stream would give it.
  const pieces = result.textBlocks ? [] : textAroundCalls(result);
  const text = (piece: string | undefined) => piece && out.push({ type: 'text-delta', text: piece });
  text(pieces[0]);
  if (result.refusal !== undefined) out.push({ type: 'refusal-delta', text: result.refusal });
  result.toolCalls.forEach((call, index) => {
    if (index > 0) text(pieces[index]);
    out.push({ type: 'tool-call-start', index, id: call.id, name: call.name });
    out.push({ type: 'tool-call-delta', index, argumentsDelta: call.arguments });
  });
  if (result.toolCalls.length > 0) text(pieces.at(-1));
  out.push({ type: 'finish', reason: result.finishReason, ...finishDetail(result) });
  if (result.usage) out.push({ type: 'reported-usage', usage: result.usage });
  return out;
}
