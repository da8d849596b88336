import { createId } from '../../canonical/create-id.ts';
import type { FinishReason } from '../../canonical/chat.ts';
import { ProviderFailure } from '../provider-failure.ts';
import type { ProviderStreamEvent, SseEvent } from '../provider-stream.ts';
import { convertAnthropicUsageReport } from './convert-anthropic-usage.ts';
import { mapAnthropicFinishReason } from './map-anthropic-finish-reason.ts';
import { readAnthropicError, statusOfAnthropicErrorType } from './parse-anthropic-error.ts';

interface AnthropicEvent {
  type?: string;
  index?: number;
  message?: { usage?: unknown };
  content_block?: { type?: string; text?: string; thinking?: string; name?: string };
  delta?: { type?: string; text?: string; thinking?: string; partial_json?: string; stop_reason?: string | null };
  usage?: unknown;
}

type Block =
  | { kind: 'text' | 'thinking' | 'json' | 'other' }
  | { kind: 'tool'; index: number; sentArguments: boolean };

/**
 * Parses the Messages SSE sequence: message_start (input usage), content blocks (text, thinking,
 * tool_use with input_json_delta), message_delta (stop reason, output usage), message_stop, with
 * pings anywhere and an `error` event that fails the stream. Blocks of the structured-output tool
 * stream as text. A tool whose input never streamed gets `{}` as arguments.
 */
export async function* parseAnthropicStream(
  events: AsyncIterable<SseEvent>,
  jsonToolName: string | null,
  newToolCallId: () => string = () => createId('call_'),
): AsyncGenerator<ProviderStreamEvent> {
  const blocks = new Map<number, Block>();
  let toolCount = 0;
  let stopReason: string | null = null;
  let stopped = false;
  let answeredWithJson = false;
  for await (const event of events) {
    let e: AnthropicEvent;
    try {
      e = JSON.parse(event.data) as AnthropicEvent;
    } catch {
      throw new ProviderFailure(502, 'the upstream sent a malformed stream event');
    }
    switch (e.type) {
      case 'message_start': {
        const usage = convertAnthropicUsageReport(e.message?.usage, false);
        if (usage) yield { type: 'reported-usage', usage };
        break;
      }
      case 'content_block_start': {
        const cb = e.content_block ?? {};
        const at = e.index ?? 0;
        if (cb.type === 'text') {
          blocks.set(at, { kind: 'text' });
          if (cb.text) yield { type: 'text-delta', text: cb.text };
        } else if (cb.type === 'thinking') {
          blocks.set(at, { kind: 'thinking' });
          if (cb.thinking) yield { type: 'reasoning-delta', text: cb.thinking };
        } else if (cb.type === 'tool_use' && jsonToolName !== null && cb.name === jsonToolName) {
          blocks.set(at, { kind: 'json' });
          answeredWithJson = true;
        } else if (cb.type === 'tool_use') {
          const index = toolCount++;
          blocks.set(at, { kind: 'tool', index, sentArguments: false });
          yield { type: 'tool-call-start', index, id: newToolCallId(), name: cb.name ?? '' };
        } else {
          blocks.set(at, { kind: 'other' });
        }
        break;
      }
      case 'content_block_delta': {
        const block = blocks.get(e.index ?? 0);
        const d = e.delta ?? {};
        if (d.type === 'text_delta' && d.text && block?.kind === 'text') yield { type: 'text-delta', text: d.text };
        else if (d.type === 'thinking_delta' && d.thinking) yield { type: 'reasoning-delta', text: d.thinking };
        else if (d.type === 'input_json_delta' && d.partial_json) {
          if (block?.kind === 'json') yield { type: 'text-delta', text: d.partial_json };
          else if (block?.kind === 'tool') {
            block.sentArguments = true;
            yield { type: 'tool-call-delta', index: block.index, argumentsDelta: d.partial_json };
          }
        }
        break;
      }
      case 'content_block_stop': {
        const block = blocks.get(e.index ?? 0);
        if (block?.kind === 'tool' && !block.sentArguments) {
          block.sentArguments = true;
          yield { type: 'tool-call-delta', index: block.index, argumentsDelta: '{}' };
        }
        break;
      }
      case 'message_delta': {
        if (e.delta?.stop_reason) stopReason = e.delta.stop_reason;
        const usage = convertAnthropicUsageReport(e.usage, true);
        if (usage) yield { type: 'reported-usage', usage };
        break;
      }
      case 'message_stop':
        stopped = true;
        break;
      case 'error': {
        const err = readAnthropicError(e) ?? { type: 'api_error', message: 'upstream error' };
        throw new ProviderFailure(statusOfAnthropicErrorType(err.type), err.message);
      }
      default:
        // ping, and event types added later
        break;
    }
    if (stopped) break;
  }
  if (!stopped && stopReason === null) throw new ProviderFailure(502, 'the upstream stream ended before the answer was complete');
  const reason: FinishReason = mapAnthropicFinishReason(stopReason);
  yield { type: 'finish', reason: answeredWithJson && toolCount === 0 && reason === 'tool_calls' ? 'stop' : reason };
}
