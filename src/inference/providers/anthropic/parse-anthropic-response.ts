import { createId } from '../../canonical/create-id.ts';
import type { CitedTextBlock, JsonObject, ReasoningBlock, ToolCall } from '../../canonical/chat.ts';
import { ProviderFailure } from '../provider-failure.ts';
import type { ProviderChatResult } from '../provider-stream.ts';
import { convertAnthropicUsage } from './convert-anthropic-usage.ts';
import { anthropicFinishDetail, mapAnthropicFinishReason } from './map-anthropic-finish-reason.ts';
import { readAnthropicError, statusOfAnthropicError } from './parse-anthropic-error.ts';

interface AnthropicResponse {
  content?: { type?: string; text?: string; citations?: unknown; thinking?: string; signature?: string; data?: string; name?: string; input?: unknown }[];
  stop_reason?: string | null;
  stop_sequence?: string | null;
  usage?: unknown;
}

/**
 * Reads a Messages API answer. A call of the structured-output tool becomes the text answer (its
 * input is the JSON) and the turn counts as stopped, not as a tool call.
 */
export function parseAnthropicResponse(
  json: unknown,
  jsonToolName: string | null,
  newToolCallId: () => string = () => createId('call_'),
): ProviderChatResult {
  const err = readAnthropicError(json);
  if (err && (json as { type?: unknown }).type === 'error') throw new ProviderFailure(statusOfAnthropicError(err), err.message);
  const body = (json ?? {}) as AnthropicResponse;
  if (!Array.isArray(body.content)) throw new ProviderFailure(502, 'the upstream answer has no content');
  let text = '';
  const textBlocks: CitedTextBlock[] = [];
  let cited = false;
  let reasoning = '';
  const reasoningBlocks: ReasoningBlock[] = [];
  let answeredWithJson = false;
  const toolCalls: ToolCall[] = [];
  for (const block of body.content) {
    if (block.type === 'text') {
      text += block.text ?? '';
      const citations = Array.isArray(block.citations) ? block.citations.filter(isObject) : [];
      if (citations.length > 0) cited = true;
      textBlocks.push({ text: block.text ?? '', ...(citations.length > 0 ? { citations } : {}) });
    }
    else if (block.type === 'thinking') {
      reasoning += block.thinking ?? '';
      reasoningBlocks.push({ type: 'thinking', thinking: block.thinking ?? '', signature: block.signature ?? '' });
    } else if (block.type === 'redacted_thinking') reasoningBlocks.push({ type: 'redacted_thinking', data: block.data ?? '' });
    else if (block.type === 'tool_use') {
      const input = JSON.stringify(block.input ?? {});
      if (jsonToolName !== null && block.name === jsonToolName) {
        text += input;
        answeredWithJson = true;
      } else {
        toolCalls.push({ id: newToolCallId(), name: block.name ?? '', arguments: input });
      }
    }
  }
  const reason = mapAnthropicFinishReason(body.stop_reason);
  return {
    text,
    reasoning,
    toolCalls,
    finishReason: answeredWithJson && toolCalls.length === 0 && reason === 'tool_calls' ? 'stop' : reason,
    ...anthropicFinishDetail(body.stop_reason, body.stop_sequence),
    ...(cited ? { textBlocks } : {}),
    ...(reasoningBlocks.length > 0 ? { reasoningBlocks } : {}),
    usage: convertAnthropicUsage(body.usage),
  };
}

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
