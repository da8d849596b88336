import type { CanonicalChatRequest } from '../../canonical/chat.ts';
import { checkOpenAISamplingFields } from '../openai-sampling-fields.ts';
import { readStreamOptions } from '../stream-options.ts';
import { checkUserText } from '../user-content.ts';
import { invalid, readBoolean, readBody, readInteger, readNumber, readString, readStringOrList } from '../read-fields.ts';

export interface ParsedCompletionRequest {
  /** Undefined when the client named none. */
  readonly model: string | undefined;
  /** The prompt as a chat request, which every chat upstream serves (see below). */
  readonly request: CanonicalChatRequest;
  readonly includeUsage: boolean;
}

/**
 * Chat-only models (most current ones, including the catalog's defaults) refuse the legacy
 * /completions endpoint, so a completion is served as a chat turn that asks for the continuation.
 */
export const CONTINUATION_INSTRUCTION =
  'Continue the text the user gives, as a raw text completion would: reply with the continuation only, without repeating the text or adding commentary.';

const isTokens = (v: unknown): boolean => Array.isArray(v) && v.length > 0 && v.every((t) => Number.isInteger(t));

/**
 * The one prompt: a string, or a list of one. OpenAI's batch forms (several prompts, one choice
 * each; token arrays of its own tokenizers) are named in the 400: one prompt is one chat turn here,
 * as `n` and `best_of` are 1, and tokens of OpenAI's vocabularies mean nothing to every upstream.
 */
function readPrompt(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) invalid('prompt', 'is required');
  if (!Array.isArray(value)) return invalid('prompt', 'must be a string');
  if (value.length === 0) invalid('prompt', 'must not be empty');
  if (value.every((v) => typeof v === 'string')) {
    if (value.length === 1) return value[0] as string;
    invalid('prompt', 'several prompts in one request are not supported; send one request per prompt');
  }
  if (isTokens(value) || value.every(isTokens)) invalid('prompt', 'token arrays are not supported; send the prompt as text');
  return invalid('prompt', 'must be a string');
}

/**
 * An OpenAI legacy /completions body. `max_tokens` has no 16-token default here (OpenAI's legacy
 * default): unset means the model's own limit, as in chat. `echo`, `suffix`, `best_of` and `logprobs`
 * have no chat equivalent and are refused when they ask for something.
 */
export function parseCompletionRequest(rawBody: unknown): ParsedCompletionRequest {
  const body = readBody(rawBody);
  const model = readString(body, 'model', '', { nonEmpty: true });
  const prompt = readPrompt(body.prompt);
  checkUserText(prompt, 'prompt');
  if (readBoolean(body, 'echo', '') === true) invalid('echo', 'is not supported');
  if (readString(body, 'suffix', '')) invalid('suffix', 'is not supported');
  const bestOf = readInteger(body, 'best_of', '', { min: 1 });
  if (bestOf !== undefined && bestOf !== 1) invalid('best_of', 'only 1 is supported');
  const logprobs = readInteger(body, 'logprobs', '', { min: 0 });
  if (logprobs !== undefined && logprobs > 0) invalid('logprobs', 'is not supported');
  const n = readInteger(body, 'n', '', { min: 1 });
  if (n !== undefined && n !== 1) invalid('n', 'only 1 is supported');
  const maxTokens = readInteger(body, 'max_tokens', '', { min: 1 });
  const temperature = readNumber(body, 'temperature', '', { min: 0, max: 2 });
  const topP = readNumber(body, 'top_p', '', { min: 0, max: 1 });
  // Penalties, seed and logit_bias: ignored, once within OpenAI's ranges.
  checkOpenAISamplingFields(body);
  // An empty stop string stops nothing; left out, as an Anthropic upstream refuses it.
  const stop = readStringOrList(body, 'stop', '', { maxItems: 4 }).filter((s) => s !== '');
  const stream = readBoolean(body, 'stream', '') ?? false;
  const streamOptions = readStreamOptions(body, stream);
  const includeUsage = streamOptions !== undefined && readBoolean(streamOptions, 'include_usage', 'stream_options') === true;
  const user = readString(body, 'user', '');
  return {
    model,
    includeUsage,
    request: {
      messages: [
        { role: 'system', content: CONTINUATION_INSTRUCTION },
        { role: 'user', content: [{ type: 'text', text: prompt }] },
      ],
      tools: [],
      stop,
      stream,
      ...(maxTokens !== undefined ? { maxTokens } : {}),
      ...(temperature !== undefined ? { temperature } : {}),
      ...(topP !== undefined ? { topP } : {}),
      ...(user !== undefined ? { user } : {}),
    },
  };
}
