import type { FinishReason, StreamPart } from '../../canonical/chat.ts';
import { rewriteRun } from '../../canonical/text-run.ts';
import type { ReasoningSealer } from '../reasoning-content.ts';
import { encodeSseData, SSE_DONE } from '../sse.ts';
import type { StreamEncoder } from '../stream-encoder.ts';
import { CustomInputStream } from '../openai-responses/client-tools.ts';
import { NO_CUSTOM_TOOLS } from './format-chat-completion.ts';
import { formatOpenAIStreamError } from './format-openai-stream-error.ts';
import type { TurnIdentity } from '../stream-encoder.ts';
import { detailOf, REASONING_DETAILS_FORMAT, type ReasoningDetail } from './reasoning-details.ts';
import { toOpenAIUsage } from './to-openai-usage.ts';

export interface ChatChunkFormatterOptions extends TurnIdentity {
  /** `stream_options.include_usage`: every chunk carries `usage: null` and a usage chunk ends the stream. */
  readonly includeUsage: boolean;
  /** Seals the reasoning blocks of `reasoning_details` (reasoning-details.ts). */
  readonly sealer: ReasoningSealer;
  /** The request's custom tools: their calls stream as `custom` calls of plain-text input. */
  readonly customTools?: ReadonlySet<string>;
}

interface Delta {
  role?: 'assistant';
  content?: string | null;
  refusal?: string;
  reasoning?: string;
  reasoning_details?: ReasoningDetail[];
  tool_calls?: (
    | { index: number; id?: string; type?: 'function'; function: { name?: string; arguments: string } }
    | { index: number; id?: string; type?: 'custom'; custom: { name?: string; input: string } }
  )[];
}

/**
 * Turns stream parts into `chat.completion.chunk` objects (write each with encodeSseData, then
 * SSE_DONE). The first chunk carries the assistant role. Reasoning is OpenRouter's streamed
 * `reasoning_details` (reasoning-details.ts): each piece of thinking text is a delta with
 * `reasoning` and a `reasoning.text` entry of the block's index; the block's signature arrives
 * when it closes as an entry with empty text and the sealed token (which holds the whole block,
 * so a client that kept only the last entry still sends the block back whole); redacted thinking
 * is one `reasoning.encrypted` entry. A client joins the entries of one index. A refusal streams
 * as `delta.refusal` pieces, as OpenAI streams one.
 */
export function createChatChunkFormatter(options: ChatChunkFormatterOptions): {
  format(part: StreamPart): object[];
  /** The opening chunk was written by other means (the stream encoder's templates): not again. */
  opened(): void;
} {
  let started = false;
  // The reasoning block being written: its index among the answer's blocks, its text so far
  // (null when none is open: the next text starts block `block`).
  let block = 0;
  let thinking: string | null = null;
  // The custom tool calls open, by index: their arguments decoded to the input text as they come.
  const customInputs = new Map<number, CustomInputStream>();
  const customTools = options.customTools ?? NO_CUSTOM_TOOLS;
  const chunk = (delta: Delta, finishReason: FinishReason | null = null) => ({
    id: options.id,
    object: 'chat.completion.chunk' as const,
    created: options.created,
    model: options.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(options.includeUsage ? { usage: null } : {}),
  });
  // A refusal opens as OpenAI's does: no content, an empty refusal.
  const opening = (refusal = false): object[] => {
    if (started) return [];
    started = true;
    return [chunk(refusal ? { role: 'assistant', content: null, refusal: '' } : { role: 'assistant', content: '' })];
  };

  return {
    opened() {
      started = true;
    },
    format(part) {
      switch (part.type) {
        case 'text-delta':
          return part.text === '' ? [] : [...opening(), chunk({ content: part.text })];
        case 'refusal-delta':
          return part.text === '' ? [] : [...opening(true), chunk({ refusal: part.text })];
        case 'reasoning-delta': {
          const details: ReasoningDetail[] = [];
          const format = REASONING_DETAILS_FORMAT;
          if (part.redacted !== undefined && part.redacted !== '') {
            if (thinking !== null) block++;
            thinking = null;
            details.push(detailOf({ type: 'redacted_thinking', data: part.redacted }, block++, options.sealer));
          }
          if (part.text !== '') {
            thinking = (thinking ?? '') + part.text;
            details.push({ type: 'reasoning.text', text: part.text, format, index: block });
          }
          if (part.signature !== undefined && part.signature !== '') {
            const closed = detailOf({ type: 'thinking', thinking: thinking ?? '', signature: part.signature }, block++, options.sealer);
            details.push({ ...closed, text: '' } as ReasoningDetail);
            thinking = null;
          }
          if (details.length === 0) return [];
          return [...opening(), chunk(part.text !== '' ? { reasoning: part.text, reasoning_details: details } : { reasoning_details: details })];
        }
        case 'tool-call-start':
          if (customTools.has(part.name)) {
            customInputs.set(part.index, new CustomInputStream());
            return [...opening(), chunk({ tool_calls: [{ index: part.index, id: part.id, type: 'custom', custom: { name: part.name, input: '' } }] })];
          }
          return [
            ...opening(),
            chunk({ tool_calls: [{ index: part.index, id: part.id, type: 'function', function: { name: part.name, arguments: '' } }] }),
          ];
        case 'tool-call-delta': {
          const custom = customInputs.get(part.index);
          if (custom) {
            const input = custom.push(part.argumentsDelta);
            return input === '' ? [] : [...opening(), chunk({ tool_calls: [{ index: part.index, custom: { input } }] })];
          }
          return part.argumentsDelta === ''
            ? []
            : [...opening(), chunk({ tool_calls: [{ index: part.index, function: { arguments: part.argumentsDelta } }] })];
        }
        // Chat completions has no citation of a client's document (its annotations are web URLs).
        case 'citation':
        case 'text-break':
          return [];
        case 'finish':
          return [...opening(), chunk({}, part.reason)];
        case 'usage':
          if (!options.includeUsage) return [];
          return [
            {
              id: options.id,
              object: 'chat.completion.chunk' as const,
              created: options.created,
              model: options.model,
              choices: [],
              usage: toOpenAIUsage(part.usage),
            },
          ];
      }
    },
  };
}

/**
 * The text of this stream's chunks that is the same for the whole stream, as encodeSseData writes
 * the formatter's chunks (a unit test holds them equal): what is around a text delta's literal,
 * the opening chunk, and the finish chunk but for its reason. Concatenated once per stream rather
 * than a chunk object built and serialized per fixed chunk: that serializing was a visible share
 * of a stream's fixed work (docs/bench-gateway.md, "Session 14").
 */
function chunkTexts(options: ChatChunkFormatterOptions): { head: string; tail: string; opening: string; finishHead: string; finishTail: string } {
  const start = `data: {"id":${JSON.stringify(options.id)},"object":"chat.completion.chunk","created":${JSON.stringify(options.created)},"model":${JSON.stringify(options.model)},"choices":[{"index":0,"delta":`;
  const end = `}]${options.includeUsage ? ',"usage":null' : ''}}\n\n`;
  return {
    head: `${start}{"content":`,
    tail: `},"logprobs":null,"finish_reason":null${end}`,
    opening: `${start}{"role":"assistant","content":""},"logprobs":null,"finish_reason":null${end}`,
    finishHead: `${start}{},"logprobs":null,"finish_reason":`,
    finishTail: end,
  };
}

/** The chat completions stream: one `data:` line per chunk, the in-stream error, then `[DONE]`. */
export function createChatStreamEncoder(options: ChatChunkFormatterOptions): StreamEncoder {
  const formatter = createChatChunkFormatter(options);
  const { head, tail, opening, finishHead, finishTail } = chunkTexts(options);
  let opened = false;
  // The opening chunk (the assistant role) before the first chunk, whichever writes it.
  const open = (): string => {
    if (opened) return '';
    opened = true;
    formatter.opened();
    return opening;
  };
  const encode = (part: StreamPart): string => {
    // Text and the finish, most of a stream and every stream's end, from the texts above.
    if (part.type === 'text-delta') return part.text === '' ? '' : open() + head + JSON.stringify(part.text) + tail;
    if (part.type === 'finish') return open() + finishHead + JSON.stringify(part.reason) + finishTail;
    const chunks = formatter.format(part);
    // Any chunk means the opening one (the assistant role) went out.
    if (chunks.length > 0) opened = true;
    return chunks.map(encodeSseData).join('');
  };
  return {
    start: () => '',
    encode,
    encodeRun(run) {
      // A text chunk is this answer's id, created and model around the text's literal: the
      // upstream's literal as it came (nothing else of the upstream's).
      return open() + rewriteRun(run, head, tail);
    },
    fail: (error) => encodeSseData(formatOpenAIStreamError(error)),
    end: () => SSE_DONE,
  };
}
