import { at, invalid } from '../read-fields.ts';

/**
 * The `include` values OpenAI's Responses API defines (the `openai` SDK's `ResponseIncludable`).
 * Only `reasoning.encrypted_content` changes an answer here; the others name outputs this service
 * has no source for, so they are taken and change nothing.
 */
const INCLUDABLE = [
  'code_interpreter_call.outputs',
  'computer_call_output.output.image_url',
  'file_search_call.results',
  'message.input_image.image_url',
  'message.output_text.logprobs',
  'reasoning.encrypted_content',
  'web_search_call.action.sources',
  'web_search_call.results',
] as const;

/**
 * Checks `include` entries of a create body or a retrieve query: a value OpenAI does not define
 * (most often a typo of one it does) is a 400 naming the entry, as OpenAI answers, rather than a
 * request that silently lacks what it asked for.
 */
export function checkIncludes(values: readonly unknown[]): readonly string[] {
  values.forEach((v, i) => {
    if (typeof v !== 'string' || !(INCLUDABLE as readonly string[]).includes(v)) invalid(at('include', i), `must be one of ${INCLUDABLE.join(', ')}`);
  });
  return values as readonly string[];
}
