import { invalid, isFields, readBoolean, readInteger, readNumber, type Fields } from './read-fields.ts';

const TOKEN_ID = /^\d+$/;

/**
 * Fields of chat completions and completions that change nothing here (no upstream gets them the
 * same way, or at all) but that OpenAI checks: out of its ranges they are a 400 naming the field,
 * as OpenAI answers, so a request refused there is refused here whatever the model
 * (docs/api-decisions.md, "Inference: nineteenth audit"). In range they are accepted and ignored.
 */
export function checkOpenAISamplingFields(body: Fields): void {
  readNumber(body, 'presence_penalty', '', { min: -2, max: 2 });
  readNumber(body, 'frequency_penalty', '', { min: -2, max: 2 });
  // Any integer: OpenAI's is 64-bit, more than a double holds exactly, so no safe-integer bound.
  const seed = body.seed;
  if (seed !== undefined && seed !== null && !(typeof seed === 'number' && Number.isInteger(seed))) invalid('seed', 'must be an integer');
  checkLogitBias(body.logit_bias);
}

/** `{"<token id>": bias}`, each bias -100..100. The ids are of OpenAI's vocabularies: not bounded here. */
function checkLogitBias(value: unknown): void {
  if (value === undefined || value === null) return;
  if (!isFields(value)) invalid('logit_bias', 'must be an object of token ids to numbers');
  for (const key of Object.keys(value)) {
    if (!TOKEN_ID.test(key)) invalid('logit_bias', `key ${JSON.stringify(key)} is not a token id; keys must be non-negative integers`);
    readNumber(value, key, 'logit_bias', { min: -100, max: 100 });
  }
}

/** Chat's `logprobs` and `top_logprobs` (0..20, only with `logprobs: true`, as OpenAI requires). */
export function checkChatLogprobs(body: Fields): void {
  const logprobs = readBoolean(body, 'logprobs', '');
  const top = readInteger(body, 'top_logprobs', '', { min: 0, max: 20 });
  if (top !== undefined && logprobs !== true) invalid('top_logprobs', 'is only allowed when logprobs is true');
}
