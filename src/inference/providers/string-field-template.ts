import type { TextEventTemplate } from '../canonical/text-run.ts';

/**
 * Reads the common streamed event (a text delta) without parsing its JSON. Learned from an event
 * that was parsed in full and carried nothing but one string field: its bytes around that
 * field's value become the template. A later event whose bytes are the same except for that
 * value, and whose value is exactly one JSON string literal, is the same object with another
 * string: match() decodes just the literal. Anything else (another index, a usage field, an
 * upstream that varies a field per event) does not match and is parsed in full.
 */
export interface StringFieldTemplate {
  /** The field's value when `data` is the learned event with another string in it. */
  match(data: string): string | undefined;
  /** Learns from an event parsed in full whose only meaningful content is `value` under `key`. */
  learn(data: string, value: string): void;
  /**
   * The learned event as server-sent event text (`before` + `data: ` + its data + a blank line),
   * for runs of such events read without splitting them (text-run.ts); null before one is learned.
   */
  sse(before: string): TextEventTemplate | null;
}

/** A quote, a backslash or a control character: the literal is parsed (or rejected) by JSON.parse. */
// eslint-disable-next-line no-control-regex -- control characters are what JSON strings may not hold raw
const NEEDS_PARSE = /["\\\u0000-\u001f]/;

export function createStringFieldTemplate(key: string): StringFieldTemplate {
  const needle = `${JSON.stringify(key)}:`;
  let prefix: string | null = null;
  let suffix = '';
  let sse: TextEventTemplate | null = null;

  return {
    match(data) {
      if (prefix === null || data.length < prefix.length + suffix.length + 2) return undefined;
      const start = prefix.length;
      const end = data.length - suffix.length;
      // Slices compared with === rather than startsWith/endsWith: V8 compares equal-length strings
      // in bulk, while startsWith with a non-constant argument walks them a character at a time
      // (about 0.35 µs for a 150-byte chunk prefix, most of the parser's time per chunk).
      if (data.slice(0, start) !== prefix || data.slice(end) !== suffix) return undefined;
      if (data.charCodeAt(start) !== 34 /* " */ || data.charCodeAt(end - 1) !== 34) return undefined;
      // Most deltas have nothing to unescape: their literal is the text between the quotes.
      const inner = data.slice(start + 1, end - 1);
      if (!NEEDS_PARSE.test(inner)) return inner;
      try {
        // One literal and nothing else parses; `"a"},"x":{"k":"b"` does not.
        const value: unknown = JSON.parse(data.slice(start, end));
        return typeof value === 'string' ? value : undefined;
      } catch {
        return undefined;
      }
    },
    learn(data, value) {
      prefix = null;
      sse = null;
      // `"key":` occurs only where key is an object key (inside a string literal a quote is always
      // escaped); it must occur once, so that it is the field the value was read from.
      const at = data.indexOf(needle);
      if (at === -1 || data.indexOf(needle, at + 1) !== -1) return;
      let start = at + needle.length;
      while (data[start] === ' ') start++;
      if (data[start] !== '"') return;
      let end = start + 1;
      while (end < data.length && data[end] !== '"') end += data[end] === '\\' ? 2 : 1;
      if (end >= data.length) return;
      const literal = data.slice(start, end + 1);
      if (JSON.parse(literal) !== value) return;
      prefix = data.slice(0, start);
      suffix = data.slice(end + 1);
    },
    sse(before) {
      if (prefix === null) return null;
      // The prefix holds `"key":`, a quote, and the tail a line break: neither occurs in a literal.
      return (sse ??= { head: `${before}data: ${prefix}`, tail: `${suffix}\n\n` });
    },
  };
}
