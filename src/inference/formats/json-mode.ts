const JSON_WORD = /json/i;

/**
 * OpenAI's JSON mode (`json_object`) refuses a conversation that never says "json" (any case,
 * inside a longer word too): a model not told to answer in JSON may write whitespace until its
 * token limit. Checked here so that every model, whatever its upstream, answers the same
 * (docs/api-decisions.md, "Inference: nineteenth audit").
 */
export function mentionsJson(texts: Iterable<string>): boolean {
  for (const text of texts) if (JSON_WORD.test(text)) return true;
  return false;
}
