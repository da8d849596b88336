import { refusalAsText, type CanonicalChatResponse, type FinishReason, type StreamPart } from '../../canonical/chat.ts';
import { encodeSseData, SSE_DONE } from '../sse.ts';
import type { StreamEncoder } from '../stream-encoder.ts';
import { formatOpenAIStreamError } from '../openai-chat/format-openai-stream-error.ts';
import type { TurnIdentity } from '../stream-encoder.ts';
import { toOpenAIUsage } from '../openai-chat/to-openai-usage.ts';

/**
 * A `text_completion` object; the identity's id is `cmpl-...`. The protocol has no refusal field:
 * a refusal is the text, finished by `content_filter` (chat.ts, refusalAsText).
 */
export function formatCompletion(answer: CanonicalChatResponse, identity: TurnIdentity) {
  const response = refusalAsText(answer);
  return {
    id: identity.id,
    object: 'text_completion' as const,
    created: identity.created,
    model: identity.model,
    choices: [{ text: response.text, index: 0, logprobs: null, finish_reason: response.finishReason }],
    usage: toOpenAIUsage(response.usage),
  };
}

/** Stream parts as `text_completion` chunks (OpenAI's legacy streaming shape); a refusal as in formatCompletion. */
export function createCompletionChunkFormatter(options: TurnIdentity & { readonly includeUsage: boolean }): { format(part: StreamPart): object[] } {
  const chunk = (text: string, finishReason: FinishReason | null) => ({
    id: options.id,
    object: 'text_completion' as const,
    created: options.created,
    model: options.model,
    choices: [{ text, index: 0, logprobs: null, finish_reason: finishReason }],
    ...(options.includeUsage ? { usage: null } : {}),
  });
  let refused = false;
  return {
    format(part) {
      switch (part.type) {
        case 'text-delta':
          return part.text === '' ? [] : [chunk(part.text, null)];
        case 'refusal-delta':
          refused = true;
          return part.text === '' ? [] : [chunk(part.text, null)];
        case 'finish':
          return [chunk('', refused ? 'content_filter' : part.reason)];
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
