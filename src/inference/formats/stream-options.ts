import { expectFields, invalid, type Fields } from './read-fields.ts';

/**
 * OpenAI's `stream_options` (chat completions, completions, responses): an object, taken only
 * with `stream: true`, as OpenAI answers 400 to it otherwise; `null` is none.
 */
export function readStreamOptions(body: Fields, stream: boolean): Fields | undefined {
  const v = body.stream_options;
  if (v === undefined || v === null) return undefined;
  const options = expectFields(v, 'stream_options');
  if (!stream) invalid('stream_options', 'is only allowed when stream is true');
  return options;
}
