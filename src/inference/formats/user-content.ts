import { invalid } from './read-fields.ts';

const NOT_BLANK = /\S/;

/**
 * A user turn must ask something: an image, or text other than whitespace. Anthropic refuses an
 * empty or blank text block (and an empty conversation, which is what the turn becomes without
 * it), OpenAI answers it; the service refuses it whichever upstream serves the model, so the answer
 * does not depend on a deployment the client cannot see (docs/api-decisions.md). `parts` are the
 * turn's content parts: one with `text` is text, any other (an image) is content.
 */
export function checkUserParts(parts: readonly { readonly type: string; readonly text?: string }[], path: string): void {
  let blank = false;
  for (const p of parts) {
    if (p.text === undefined || NOT_BLANK.test(p.text)) return;
    if (p.text !== '') blank = true;
  }
  invalid(path, blank ? 'must not be only whitespace' : 'must not be empty');
}

/** The same for a turn given as one string. */
export function checkUserText(text: string, path: string): void {
  if (!NOT_BLANK.test(text)) invalid(path, text === '' ? 'must not be empty' : 'must not be only whitespace');
}
