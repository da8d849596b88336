import type { CanonicalChatResponse, FinishReason, StreamPart } from '../../canonical/chat.ts';
import { encodeSseData, SSE_DONE } from '../sse.ts';
import type { StreamEncoder } from '../stream-encoder.ts';
import { formatOpenAIStreamError } from '../openai-chat/format-openai-stream-error.ts';
import type { TurnIdentity } from '../stream-encoder.ts';
import { toOpenAIUsage } from '../openai-chat/to-openai-usage.ts';

/** A `text_completion` object; the identity's id is `cmpl-...`. */
export function formatCompletion(response: CanonicalChatResponse, identity: TurnIdentity) {
  return {
    id: identity.id,
    object: 'text_completion' as const,
    created: identity.created,
    model: identity.model,
    choices: [{ text: response.text, index: 0, logprobs: null, finish_reason: response.finishReason }],
    usage: toOpenAIUsage(response.usage),
  };
}

/** Stream parts as `text_completion` chunks (OpenAI's legacy streaming shape). */
export function createCompletionChunkFormatter(options: TurnIdentity & { readonly includeUsage: boolean }): { format(part: StreamPart): object[] } {
  const chunk = (text: string, finishReason: FinishReason | null) => ({
    id: options.id,
    object: 'text_completion' as const,
    created: options.created,
    model: options.model,
    choices: [{ text, index: 0, logprobs: null, finish_reason: finishReason }],
    ...(options.includeUsage ? { usage: null } : {}),
  });
  return {
    format(part) {
      switch (part.type) {
        case 'text-delta':
          return part.text === '' ? [] : [chunk(part.text, null)];
        case 'finish':
          return [chunk('', part.reason)];
        case 'usage':
          return options.includeUsage
            ? [{ id: options.id, object: 'text_completion' as const, created: options.created, model: options.model, choices: [], usage: toOpenAIUsage(part.usage) }]
            : [];
        default:
          // completions have no reasoning or tools
          return [];
      }
    },
  };
}

/** The legacy completions stream: `data:` chunks, the in-stream error, then `[DONE]`. */
export function createCompletionStreamEncoder(options: TurnIdentity & { readonly includeUsage: boolean }): StreamEncoder {
  const formatter = createCompletionChunkFormatter(options);
  return {
    start: () => '',
    encode: (part) => formatter.format(part).map(encodeSseData).join(''),
    fail: (error) => encodeSseData(formatOpenAIStreamError(error)),
    end: () => SSE_DONE,
  };
}
