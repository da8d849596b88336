/** Most characters (code points, as JSON Schema's maxLength counts them) in a key's name as stored. */
export const KEY_NAME_MAX = 100;

/**
 * Characters a name shown in a table, a log line, a CSV row or an operator's terminal must not
 * hold: C0 and C1 controls and DEL (a newline splits a line in two, ESC drives a terminal), the
 * line and paragraph separators, and the bidirectional marks, embeddings, overrides and isolates
 * (U+202E shows `exe.gnp` as `png.exe`). Other format characters stay: ZWJ joins emoji.
 */
// eslint-disable-next-line no-control-regex -- control characters are what this refuses
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** The name as stored (trimmed), or why it cannot be one; `blank` tells whether an empty name is allowed. */
export function checkKeyName(name: string, opts: { allowBlank: boolean }): { name: string } | { problem: string } {
  if (CONTROL.test(name)) return { problem: 'must not contain control characters (line breaks, tabs, escapes, bidirectional controls)' };
  const trimmed = name.trim();
  if (trimmed === '' && !opts.allowBlank) return { problem: 'must not be blank' };
  if ([...trimmed].length > KEY_NAME_MAX) return { problem: `must be at most ${KEY_NAME_MAX} characters` };
  return { name: trimmed };
}
