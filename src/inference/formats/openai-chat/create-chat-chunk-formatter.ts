import type { FinishReason, StreamPart } from '../../canonical/chat.ts';
import { encodeSseData, SSE_DONE } from '../sse.ts';
import type { StreamEncoder } from '../stream-encoder.ts';
import { formatOpenAIStreamError } from './format-openai-stream-error.ts';
import type { TurnIdentity } from '../stream-encoder.ts';
import { toOpenAIUsage } from './to-openai-usage.ts';

export interface ChatChunkFormatterOptions extends TurnIdentity {
  /** `stream_options.include_usage`: every chunk carries `usage: null` and a usage chunk ends the stream. */
  readonly includeUsage: boolean;
}

interface Delta {
  role?: 'assistant';
  content?: string;
  tool_calls?: { index: number; id?: string; type?: 'function'; function: { name?: string; arguments: string } }[];
}

/**
 * Turns stream parts into `chat.completion.chunk` objects (write each with encodeSseData, then
 * SSE_DONE). The first chunk carries the assistant role; reasoning has no place in this format
 * and is dropped.
 */
export function createChatChunkFormatter(options: ChatChunkFormatterOptions): { format(part: StreamPart): object[] } {
  let started = false;
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
        case 'reasoning-delta':
          return [];
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
  return {
    start: () => '',
    encode(part) {
      if (opened && part.type === 'text-delta' && part.text !== '') return head + JSON.stringify(part.text) + tail;
      const chunks = formatter.format(part);
      // Any chunk means the opening one (the assistant role) went out.
      if (chunks.length > 0) opened = true;
      return chunks.map(encodeSseData).join('');
    },
    fail: (error) => encodeSseData(formatOpenAIStreamError(error)),
    end: () => SSE_DONE,
  };
}
