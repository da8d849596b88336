import { createId } from '../../canonical/create-id.ts';
import { blocksUpTo, StopCutter } from '../../canonical/stop-cut.ts';
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
 *
 * With `cutAt` (sequences the upstream was not sent), the answer ends before the first of them,
 * matched as a stream of it is (StopCutter, stop-cut-events.ts): within text written without other
 * content between (a tool call, reasoning or a cited block breaks it), in block order, so the calls
 * before the match are kept and nothing after it is.
 */
export function parseAnthropicResponse(
  json: unknown,
  jsonToolName: string | null,
  newToolCallId: () => string = () => createId('call_'),
  cutAt?: readonly string[],
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
  const textBeforeCalls: number[] = [];
  const cutter = cutAt ? new StopCutter(cutAt) : null;
  let cutBy: string | null = null;
  /** Adds text to the answer; the stop sequence it ended at, if it did. */
  const write = (piece: string): string | null => {
    if (cutter === null) {
      text += piece;
      return null;
    }
    const { text: out, stop } = cutter.push(piece);
    text += out;
    return stop;
  };
  /** Other content comes next: held text goes out, as a stream sends it before that content. */
  const breakText = () => {
    if (cutter !== null) text += cutter.flush();
  };
  for (const block of body.content) {
    if (block.type === 'text') {
      const citations = Array.isArray(block.citations) ? block.citations.filter(isObject) : [];
      if (citations.length > 0) cited = true;
      textBlocks.push({ text: block.text ?? '', ...(citations.length > 0 ? { citations } : {}) });
      if (citations.length > 0) breakText();
      cutBy = write(block.text ?? '');
      if (cutBy !== null) break;
      if (citations.length > 0) breakText();
    }
    else if (block.type === 'thinking') {
      breakText();
      reasoning += block.thinking ?? '';
      reasoningBlocks.push({ type: 'thinking', thinking: block.thinking ?? '', signature: block.signature ?? '' });
    } else if (block.type === 'redacted_thinking') {
      breakText();
      reasoningBlocks.push({ type: 'redacted_thinking', data: block.data ?? '' });
    } else if (block.type === 'tool_use') {
      const input = JSON.stringify(block.input ?? {});
      if (jsonToolName !== null && block.name === jsonToolName) {
        answeredWithJson = true;
        cutBy = write(input);
        if (cutBy !== null) break;
      } else {
        breakText();
        textBeforeCalls.push(text.length);
        toolCalls.push({ id: newToolCallId(), name: block.name ?? '', arguments: input });
      }
    }
  }
  breakText();
  const reason = mapAnthropicFinishReason(body.stop_reason);
  return {
    text,
    reasoning,
    toolCalls,
    ...(cutBy === null
      ? { finishReason: answeredWithJson && toolCalls.length === 0 && reason === 'tool_calls' ? 'stop' : reason, ...anthropicFinishDetail(body.stop_reason, body.stop_sequence) }
      : { finishReason: 'stop' as const, stopSequence: cutBy }),
    ...(cited ? { textBlocks: cutBy === null ? textBlocks : blocksUpTo(textBlocks, text.length) } : {}),
    ...(reasoningBlocks.length > 0 ? { reasoningBlocks } : {}),
    ...(textBeforeCalls.some((n) => n < text.length) ? { textBeforeCalls } : {}),
    usage: convertAnthropicUsage(body.usage),
  };
}

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
