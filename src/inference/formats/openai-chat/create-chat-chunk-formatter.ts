import type { FinishReason, StreamPart } from '../../canonical/chat.ts';
import { rewriteRun } from '../../canonical/text-run.ts';
import type { ReasoningSealer } from '../reasoning-content.ts';
import { encodeSseData, SSE_DONE } from '../sse.ts';
import { encodeRunAsDeltas, type StreamEncoder } from '../stream-encoder.ts';
import { formatOpenAIStreamError } from './format-openai-stream-error.ts';
import type { TurnIdentity } from '../stream-encoder.ts';
import { detailOf, REASONING_DETAILS_FORMAT, type ReasoningDetail } from './reasoning-details.ts';
import { toOpenAIUsage } from './to-openai-usage.ts';

export interface ChatChunkFormatterOptions extends TurnIdentity {
  /** `stream_options.include_usage`: every chunk carries `usage: null` and a usage chunk ends the stream. */
  readonly includeUsage: boolean;
  /** Seals the reasoning blocks of `reasoning_details` (reasoning-details.ts). */
  readonly sealer: ReasoningSealer;
}

interface Delta {
  role?: 'assistant';
  content?: string;
  reasoning?: string;
  reasoning_details?: ReasoningDetail[];
  tool_calls?: { index: number; id?: string; type?: 'function'; function: { name?: string; arguments: string } }[];
}

/**
 * Turns stream parts into `chat.completion.chunk` objects (write each with encodeSseData, then
 * SSE_DONE). The first chunk carries the assistant role. Reasoning is OpenRouter's streamed
 * `reasoning_details` (reasoning-details.ts): each piece of thinking text is a delta with
 * `reasoning` and a `reasoning.text` entry of the block's index; the block's signature arrives
 * when it closes as an entry with empty text and the sealed token (which holds the whole block,
 * so a client that kept only the last entry still sends the block back whole); redacted thinking
 * is one `reasoning.encrypted` entry. A client joins the entries of one index.
 */
export function createChatChunkFormatter(options: ChatChunkFormatterOptions): { format(part: StreamPart): object[] } {
  let started = false;
  // The reasoning block being written: its index among the answer's blocks, its text so far
  // (null when none is open: the next text starts block `block`).
  let block = 0;
  let thinking: string | null = null;
  const chunk = (delta: Delta, finishReason: FinishReason | null = null) => ({
    id: options.id,
    object: 'chat.completion.chunk' as const,
    created: options.created,
    model: options.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(options.includeUsage ? { usage: null } : {}),
  });
  const opening = (): object[] => {
    if (started) return [];
    started = true;
    return [chunk({ role: 'assistant', content: '' })];
  };

  return {
    format(part) {
      switch (part.type) {
        case 'text-delta':
          return part.text === '' ? [] : [...opening(), chunk({ content: part.text })];
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
          return [
            ...opening(),
            chunk({ tool_calls: [{ index: part.index, id: part.id, type: 'function', function: { name: part.name, arguments: '' } }] }),
          ];
        case 'tool-call-delta':
          return part.argumentsDelta === ''
            ? []
            : [...opening(), chunk({ tool_calls: [{ index: part.index, function: { arguments: part.argumentsDelta } }] })];
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

/** The chat completions stream: one `data:` line per chunk, the in-stream error, then `[DONE]`. */
export function createChatStreamEncoder(options: ChatChunkFormatterOptions): StreamEncoder {
  const formatter = createChatChunkFormatter(options);
  // A text chunk after the first is most of a stream: its bytes around the text are the same for
  // the whole stream (what encodeSseData makes of chunk({ content }), tested to be equal).
  const sample = createChatChunkFormatter(options).format({ type: 'text-delta', text: '\u0000' }).at(-1);
  const [head, tail] = encodeSseData(sample).split('"\\u0000"') as [string, string];
  let opened = false;
  const encode = (part: StreamPart): string => {
    if (opened && part.type === 'text-delta' && part.text !== '') return head + JSON.stringify(part.text) + tail;
    const chunks = formatter.format(part);
    // Any chunk means the opening one (the assistant role) went out.
    if (chunks.length > 0) opened = true;
    return chunks.map(encodeSseData).join('');
  };
  return {
    start: () => '',
    encode,
    encodeRun(run) {
      // After the opening chunk a text chunk is this answer's id, created and model around the
      // text's literal: the upstream's literal as it came (nothing else of the upstream's).
      return opened ? rewriteRun(run, head, tail) : encodeRunAsDeltas(run, encode);
    },
    fail: (error) => encodeSseData(formatOpenAIStreamError(error)),
    end: () => SSE_DONE,
  };
}
