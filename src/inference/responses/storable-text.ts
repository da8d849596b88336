/**
 * Text PostgreSQL cannot keep in a jsonb column: a NUL character, and a UTF-16 surrogate without
 * its pair (not text in UTF-8). Models do answer NUL characters, and a client's text cut inside
 * an emoji ends in half of it (docs/api-decisions.md, "Inference: eighth audit").
 *
 * JSON.stringify writes both as `\u` escapes (a NUL as `\u0000`, a lone surrogate as `\ud83d`;
 * a paired one stays raw), which jsonb refuses. So the JSON text of a write is rewritten, not the
 * values: one scan of text already made, and nothing walked when none is there.
 */
// Every escape of the text, one at a time, so that an escaped backslash (`\\`) before `u0000` is
// read as what it is. A high surrogate's escape takes its low one with it when it has one.
const ESCAPE = /\\(?:u(?:d[89ab][0-9a-f]{2}(?:\\ud[c-f][0-9a-f]{2})?|[0-9a-f]{4})|[^u])/g;
const SUSPECT = /\\u(?:0000|d[89a-f])/;

/** `json` (JSON.stringify's text) with each NUL and unpaired surrogate written as U+FFFD. */
export function storableJsonText(json: string): string {
  if (!SUSPECT.test(json)) return json;
  return json.replace(ESCAPE, (e) => (e === '\\u0000' || (e.length === 6 && /^\\ud[89a-f]/.test(e)) ? '\\ufffd' : e));
}

/** An id with a NUL character names nothing stored (PostgreSQL text holds none, and a query with one fails). */
export function storableId(id: string): boolean {
  return !id.includes('\u0000');
}
