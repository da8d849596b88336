import type { FastifySchemaValidationError } from 'fastify/types/schema.js';

/**
 * What every validated input must also satisfy, whatever its schema says: no number the
 * database cannot hold, no text PostgreSQL cannot store. Ajv lets `Infinity` through an integer
 * with a maximum once it has coerced `"1e309"` or `"Infinity"` from a query string, and a JSON
 * `1e309` parses to Infinity; a NUL byte or a lone surrogate fails deep in the driver. Refused
 * here, before any query, as a 400 naming the field.
 */
export interface GuardSchema {
  readonly type?: string | readonly string[];
  readonly properties?: Record<string, GuardSchema>;
  readonly additionalProperties?: boolean | GuardSchema;
  readonly items?: GuardSchema;
  readonly anyOf?: readonly GuardSchema[];
  readonly oneOf?: readonly GuardSchema[];
  readonly allOf?: readonly GuardSchema[];
}

/** A UTF-16 surrogate without its pair: not text in UTF-8, refused by PostgreSQL. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The keywords of these errors; the error formatters use their message as written. */
export const GUARD_KEYWORDS = new Set(['finite', 'safeInteger', 'noNul', 'wellFormed', 'depth']);

/** Deeper JSON is no request this service takes, and walking it must not exhaust the stack. */
const MAX_DEPTH = 64;

/** The first value that breaks the rules above, as an Ajv-shaped error; null when none. */
export function guardInput(schema: GuardSchema | undefined, data: unknown, path = '', depth = 0): FastifySchemaValidationError | null {
  if (typeof data === 'string') {
    if (data.includes('\u0000')) return issue('noNul', path, 'must not contain NUL characters');
    if (LONE_SURROGATE.test(data)) return issue('wellFormed', path, 'must not contain unpaired surrogates');
    return null;
  }
  if (typeof data === 'number') {
    if (!Number.isFinite(data)) return issue('finite', path, 'must be a finite number');
    if (allowsInteger(schema) && Number.isInteger(data) && !Number.isSafeInteger(data)) {
      return issue('safeInteger', path, `must be between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`);
    }
    return null;
  }
  if (depth > MAX_DEPTH && data !== null && typeof data === 'object') return issue('depth', path, `must not be nested deeper than ${MAX_DEPTH} levels`);
  if (Array.isArray(data)) {
    for (let i = 0; i < data.length; i++) {
      const e = guardInput(itemsOf(schema), data[i], `${path}/${i}`, depth + 1);
      if (e) return e;
    }
    return null;
  }
  if (data !== null && typeof data === 'object') {
    for (const [key, value] of Object.entries(data)) {
      // A key is text too (it may be echoed in an "unknown field" message or stored as JSON).
      if (key.includes('\u0000') || LONE_SURROGATE.test(key)) return issue('noNul', path, 'must not have a field name with NUL characters or unpaired surrogates');
      const e = guardInput(propertyOf(schema, key), value, `${path}/${escapePointer(key)}`, depth + 1);
      if (e) return e;
    }
  }
  return null;
}

function issue(keyword: string, instancePath: string, message: string): FastifySchemaValidationError {
  return { keyword, instancePath, schemaPath: '#', params: {}, message };
}

function branches(schema: GuardSchema | undefined): GuardSchema[] {
  if (!schema) return [];
  return [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])];
}

function allowsInteger(schema: GuardSchema | undefined): boolean {
  return branches(schema).some((s) => s.type === 'integer' || (Array.isArray(s.type) && s.type.includes('integer')));
}

function itemsOf(schema: GuardSchema | undefined): GuardSchema | undefined {
  return branches(schema).find((s) => s.items)?.items;
}

function propertyOf(schema: GuardSchema | undefined, key: string): GuardSchema | undefined {
  for (const s of branches(schema)) {
    const p = s.properties?.[key];
    if (p) return p;
    if (typeof s.additionalProperties === 'object') return s.additionalProperties;
  }
  return undefined;
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
