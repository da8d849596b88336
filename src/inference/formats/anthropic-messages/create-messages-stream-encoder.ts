import type { StreamPart } from '../../canonical/chat.ts';
import { HttpError } from '../../../shared/errors.ts';
import { rewriteRun } from '../../canonical/text-run.ts';
import type { ReasoningSealer } from '../reasoning-content.ts';
import { encodeSseEvent } from '../sse.ts';
import { encodeRunAsDeltas, type StreamEncoder, type TurnIdentity } from '../stream-encoder.ts';
import { sealBlockValue } from './sealed-tokens.ts';
import { toAnthropicStopReason, toAnthropicUsage } from './to-anthropic-usage.ts';

/** The Messages API's error type for a status, as its in-stream `error` events carry it. */
export function anthropicErrorType(status: number): string {
  switch (status) {
    case 400:
      return 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 402:
      return 'billing_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 503:
    case 529:
      return 'overloaded_error';
    case 504:
      return 'timeout_error';
    default:
      return status < 500 ? 'invalid_request_error' : 'api_error';
  }
}

const TEXT_DELTA_TAIL = '}}\n\n';
// Events every stream writes, as text: what encodeSseEvent makes of their objects (a unit test
// holds them equal), without an object spread and serialized per event (docs/bench-gateway.md,
// "Session 14").
const MESSAGE_STOP = 'event: message_stop\ndata: {"type":"message_stop"}\n\n';
const blockStop = (index: number): string => `event: content_block_stop\ndata: {"type":"content_block_stop","index":${index}}\n\n`;
const textBlockStart = (index: number): string =>
  `event: content_block_start\ndata: {"type":"content_block_start","index":${index},"content_block":{"type":"text","text":""}}\n\n`;
const messageStart = (identity: TurnIdentity): string =>
  `event: message_start\ndata: {"type":"message_start","message":{"id":${JSON.stringify(identity.id)},"type":"message","role":"assistant","model":${JSON.stringify(identity.model)},` +
  '"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"cache_creation":null,"output_tokens":0,"service_tier":"standard"}}}\n\n';

type Open = { kind: 'text'; cited: boolean; written: boolean } | { kind: 'thinking'; signed: boolean } | { kind: 'tool'; index: number } | null;

/**
 * The Messages stream: `message_start` (empty content, zero usage and no `cache_creation`
 * breakdown: the counts are known only at the end), then per content block `content_block_start`, its deltas and `content_block_stop`,
 * then `message_delta` with the stop reason and the whole usage (the SDK takes the cumulative
 * counts it carries), then `message_stop`. Every event has its `event:` line. A block closes when
 * a part of another kind arrives; a thinking block also closes at its signature, so a following
 * reasoning part starts a new block. A cited text block (the upstream's citations, each a
 * `citations_delta` before its text) ends at the upstream's `text-break`. Signatures (`signature_delta`) and redacted data are the
 * service's sealed tokens of the upstream's (sealed-tokens.ts), under the account's `sealer`.
 */
export function createMessagesStreamEncoder(identity: TurnIdentity, sealer: ReasoningSealer): StreamEncoder {
  let index = -1;
  let open: Open = null;
  let stopSequence: string | undefined;
  let stopReason: ReturnType<typeof toAnthropicStopReason> = 'end_turn';
  let failed = false;
  // A refusal streams as text and stops with `refusal` (format-message.ts).
  let refused = false;

  const event = (type: string, body: object) => encodeSseEvent(type, { type, ...body });
  const close = (): string => {
    if (open === null) return '';
    open = null;
    return blockStop(index);
  };
  const begin = (next: Exclude<Open, null>, block: object | null): string => {
    const out = close();
    index++;
    open = next;
    return out + (block === null ? textBlockStart(index) : event('content_block_start', { index, content_block: block }));
  };
  const delta = (d: object) => event('content_block_delta', { index, delta: d });
  // Most of a stream: a text delta in the open text block. Its bytes are the same for the whole
  // block around the text (what delta() makes of it, tested to be equal): made once per block.
  let textDeltaHead = '';

  function beginText(cited: boolean, block: object | null, written: boolean): string {
    const out = begin({ kind: 'text', cited, written }, block);
    textDeltaHead = `event: content_block_delta\ndata: {"type":"content_block_delta","index":${index},"delta":{"type":"text_delta","text":`;
    return out;
  }

  function reasoning(part: Extract<StreamPart, { type: 'reasoning-delta' }>): string {
    let out = '';
    if (part.redacted !== undefined) {
      out += begin({ kind: 'thinking', signed: true }, { type: 'redacted_thinking', data: sealBlockValue('data', part.redacted, sealer) });
      return out + close();
    }
    if (open?.kind !== 'thinking' || open.signed) out += begin({ kind: 'thinking', signed: false }, { type: 'thinking', thinking: '', signature: '' });
    if (part.text !== '') out += delta({ type: 'thinking_delta', thinking: part.text });
    if (part.signature !== undefined) {
      out += delta({ type: 'signature_delta', signature: sealBlockValue('signature', part.signature, sealer) });
      (open as { signed: boolean }).signed = true;
    }
    return out;
  }

  return {
    start: () => messageStart(identity),
    encode(part) {
      switch (part.type) {
        case 'text-delta': {
          if (part.text === '') return '';
          if (open?.kind === 'text') {
            open.written = true;
            return textDeltaHead + JSON.stringify(part.text) + TEXT_DELTA_TAIL;
          }
          // A text block starts empty (textBlockStart).
          const head = beginText(false, null, true);
          return head + textDeltaHead + JSON.stringify(part.text) + TEXT_DELTA_TAIL;
        }
        // After the text case: text, most of a stream, is compared first.
        case 'refusal-delta':
          refused = true;
          return this.encode({ type: 'text-delta', text: part.text });
        case 'citation': {
          // A block's citations come before its text: one that already has text is closed first.
          const head = open?.kind === 'text' && open.cited && !open.written ? '' : beginText(true, { type: 'text', text: '', citations: [] }, false);
          return head + delta({ type: 'citations_delta', citation: part.citation });
        }
        case 'text-break':
          return open?.kind === 'text' ? close() : '';
        case 'reasoning-delta':
          return reasoning(part);
        case 'tool-call-start':
          return begin({ kind: 'tool', index: part.index }, { type: 'tool_use', id: part.id, name: part.name, input: {} });
        case 'tool-call-delta':
          // Deltas of the open tool block; the canonical stream sends one call's arguments at a time.
          if (part.argumentsDelta === '' || open?.kind !== 'tool' || open.index !== part.index) return '';
          return delta({ type: 'input_json_delta', partial_json: part.argumentsDelta });
        case 'finish':
          stopSequence = part.stopSequence;
          stopReason = refused ? 'refusal' : toAnthropicStopReason(part.reason, part);
          return close();
        case 'usage':
          return event('message_delta', {
            delta: { stop_reason: stopReason, stop_sequence: stopSequence ?? null },
            usage: toAnthropicUsage(part.usage),
          });
      }
    },
    encodeRun(run) {
      // In an open text block a text delta is the block's head and tail around the text's literal:
      // the upstream's literal as it came, whichever protocol it came in.
      if (open?.kind !== 'text') return encodeRunAsDeltas(run, (part) => this.encode(part));
      open.written = true;
      return rewriteRun(run, textDeltaHead, TEXT_DELTA_TAIL);
    },
    fail(error) {
      failed = true;
      const known = error instanceof HttpError;
      const status = known ? error.status : 500;
      return event('error', { error: { type: anthropicErrorType(status), message: known ? error.message : 'internal error' } });
    },
    // After an error event the stream just ends, as the API's does.
    end: () => (failed ? '' : MESSAGE_STOP),
  };
}
