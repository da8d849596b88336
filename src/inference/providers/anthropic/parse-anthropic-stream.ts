import { createId } from '../../canonical/create-id.ts';
import type { FinishReason, JsonObject } from '../../canonical/chat.ts';
import { ProviderFailure } from '../provider-failure.ts';
import { parseEvents, type ProviderStreamEvent, type ProviderStreamParser, type SseEvent } from '../provider-stream.ts';
import { createStringFieldTemplate } from '../string-field-template.ts';
import { convertAnthropicUsageReport } from './convert-anthropic-usage.ts';
import { anthropicFinishDetail, mapAnthropicFinishReason } from './map-anthropic-finish-reason.ts';
import { readAnthropicError, statusOfAnthropicError } from './parse-anthropic-error.ts';

interface AnthropicEvent {
  type?: string;
  index?: number;
  message?: { usage?: unknown };
  content_block?: { type?: string; text?: string; thinking?: string; data?: string; name?: string };
  delta?: {
    type?: string;
    text?: string;
    thinking?: string;
    signature?: string;
    partial_json?: string;
    citation?: unknown;
    stop_reason?: string | null;
    stop_sequence?: string | null;
  };
  usage?: unknown;
}

type Block =
  | { kind: 'text'; cited: boolean }
  | { kind: 'thinking' | 'json' | 'other' }
  | { kind: 'tool'; index: number; sentArguments: boolean };

/**
 * Parses the Messages SSE sequence: message_start (input usage), content blocks (text with its
 * citations_delta, thinking, tool_use with input_json_delta), message_delta (stop reason, output usage), message_stop, with
 * pings anywhere and an `error` event that fails the stream. Blocks of the structured-output tool
 * stream as text. A tool whose input never streamed gets `{}` as arguments. A text delta like the
 * last one parsed in full (same block) is read from its bytes (see createStringFieldTemplate).
 */
export function createAnthropicStreamParser(
  jsonToolName: string | null,
  newToolCallId: () => string = () => createId('call_'),
): ProviderStreamParser {
  const blocks = new Map<number, Block>();
  const textDelta = createStringFieldTemplate('text');
  let toolCount = 0;
  let stopReason: string | null = null;
  let stopSequence: string | null = null;
  let answeredWithJson = false;
  let stopped = false;
  return {
    // A text delta's event as Anthropic writes it, named on its own line.
    textTemplate: () => textDelta.sse('event: content_block_delta\n'),
    push(event, out) {
      const text = textDelta.match(event.data);
      if (text !== undefined) {
        if (text !== '') out.push({ type: 'text-delta', text });
        return false;
      }
      let e: AnthropicEvent;
      try {
        e = JSON.parse(event.data) as AnthropicEvent;
      } catch {
        throw new ProviderFailure(502, 'the upstream sent a malformed stream event');
      }
      switch (e.type) {
        case 'message_start': {
          const usage = convertAnthropicUsageReport(e.message?.usage, false);
          if (usage) out.push({ type: 'reported-usage', usage });
          break;
        }
        case 'content_block_start': {
          const cb = e.content_block ?? {};
          const at = e.index ?? 0;
          if (cb.type === 'text') {
            blocks.set(at, { kind: 'text', cited: false });
            if (cb.text) out.push({ type: 'text-delta', text: cb.text });
          } else if (cb.type === 'thinking') {
            blocks.set(at, { kind: 'thinking' });
            if (cb.thinking) out.push({ type: 'reasoning-delta', text: cb.thinking });
          } else if (cb.type === 'redacted_thinking') {
            blocks.set(at, { kind: 'other' });
            out.push({ type: 'reasoning-delta', text: '', redacted: cb.data ?? '' });
          } else if (cb.type === 'tool_use' && jsonToolName !== null && cb.name === jsonToolName) {
            blocks.set(at, { kind: 'json' });
            answeredWithJson = true;
          } else if (cb.type === 'tool_use') {
            const index = toolCount++;
            blocks.set(at, { kind: 'tool', index, sentArguments: false });
            out.push({ type: 'tool-call-start', index, id: newToolCallId(), name: cb.name ?? '' });
          } else {
            blocks.set(at, { kind: 'other' });
          }
          break;
        }
        case 'content_block_delta': {
          const block = blocks.get(e.index ?? 0);
          const d = e.delta ?? {};
          if (d.type === 'text_delta' && d.text && block?.kind === 'text') {
            out.push({ type: 'text-delta', text: d.text });
            // Later deltas of this block that differ only in their text are read without parsing.
            textDelta.learn(event.data, d.text);
          } else if (d.type === 'citations_delta' && block?.kind === 'text' && typeof d.citation === 'object' && d.citation !== null) {
            block.cited = true;
            out.push({ type: 'citation', citation: d.citation as JsonObject });
          } else if (d.type === 'thinking_delta' && d.thinking) out.push({ type: 'reasoning-delta', text: d.thinking });
          else if (d.type === 'signature_delta' && d.signature) out.push({ type: 'reasoning-delta', text: '', signature: d.signature });
          else if (d.type === 'input_json_delta' && d.partial_json) {
            if (block?.kind === 'json') out.push({ type: 'text-delta', text: d.partial_json });
            else if (block?.kind === 'tool') {
              block.sentArguments = true;
              out.push({ type: 'tool-call-delta', index: block.index, argumentsDelta: d.partial_json });
            }
          }
          break;
        }
        case 'content_block_stop': {
          const block = blocks.get(e.index ?? 0);
          if (block?.kind === 'tool' && !block.sentArguments) {
            block.sentArguments = true;
            out.push({ type: 'tool-call-delta', index: block.index, argumentsDelta: '{}' });
          }
          if (block?.kind === 'text' && block.cited) out.push({ type: 'text-break' });
          break;
        }
        case 'message_delta': {
          if (e.delta?.stop_reason) stopReason = e.delta.stop_reason;
          if (typeof e.delta?.stop_sequence === 'string') stopSequence = e.delta.stop_sequence;
          const usage = convertAnthropicUsageReport(e.usage, true);
          if (usage) out.push({ type: 'reported-usage', usage });
          break;
        }
        case 'message_stop':
          stopped = true;
          return true;
        case 'error': {
          const err = readAnthropicError(e) ?? { type: 'api_error', message: 'upstream error' };
          throw new ProviderFailure(statusOfAnthropicError(err), err.message);
        }
        default:
          // ping, and event types added later
          break;
      }
      return false;
    },
    end(out) {
      // Without message_stop, a stop reason still marks a complete answer.
      if (!stopped && stopReason === null) throw new ProviderFailure(502, 'the upstream stream ended before the answer was complete');
      const reason: FinishReason = mapAnthropicFinishReason(stopReason);
      out.push({
        type: 'finish',
        reason: answeredWithJson && toolCount === 0 && reason === 'tool_calls' ? 'stop' : reason,
        ...anthropicFinishDetail(stopReason, stopSequence),
      });
    },
  };
}

/** The same over an event iterable (tests, and anything not read in batches). */
export async function* parseAnthropicStream(
  events: AsyncIterable<SseEvent>,
  jsonToolName: string | null,
  newToolCallId: () => string = () => createId('call_'),
): AsyncGenerator<ProviderStreamEvent> {
  yield* parseEvents(createAnthropicStreamParser(jsonToolName, newToolCallId), events);
}
