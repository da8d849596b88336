/**
 * Text PostgreSQL cannot keep in a jsonb column: a NUL character, and a UTF-16 surrogate without
 * its pair (not text in UTF-8). Models do answer NUL characters, and a client's text cut inside
 * an emoji ends in half of it (docs/api-decisions.md, "Inference: eighth audit").
 */
// eslint-disable-next-line no-control-regex -- the NUL character is what jsonb cannot hold
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');

/**
 * `value` with every such character, in its strings and field names, replaced by U+FFFD (the
 * replacement character, as a UTF-8 encoder gives for an unpaired surrogate). Copy on write: a
 * value without any comes back as it is (the same object), and the value given is never changed.
 */
export function storableJson<T>(value: T): T {
  return clean(value) as T;
}

function clean(value: unknown): unknown {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? value.replace(UNSTORABLE_ALL, '\uFFFD') : value;
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const v = clean(value[i]);
      if (v !== value[i]) (out ??= value.slice())[i] = v;
    }
    return out ?? value;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    let changed = false;
    const cleaned = entries.map(([k, v]) => {
      const ck = clean(k) as string;
      const cv = clean(v);
      if (ck !== k || cv !== v) changed = true;
      return [ck, cv] as const;
    });
    return changed ? Object.fromEntries(cleaned) : value;
  }
  return value;
}

/** An id with a NUL character names nothing stored (PostgreSQL text holds none, and a query with one fails). */
export function storableId(id: string): boolean {
  return !id.includes('\u0000');
}
