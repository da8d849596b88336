import { badRequest } from '../../shared/errors.ts';

/**
 * Small readers for hand-validated request bodies. Every failure is a 400 whose message starts
 * with the field's path, e.g. `messages[0].content: must be a string or an array of parts`.
 */
export type Fields = Record<string, unknown>;

export function invalid(path: string, message: string): never {
  throw badRequest(`${path}: ${message}`);
}

export function at(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

export function isFields(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function readBody(body: unknown): Fields {
  if (!isFields(body)) throw badRequest('body: must be a JSON object');
  return body;
}

export function expectFields(value: unknown, path: string): Fields {
  if (!isFields(value)) invalid(path, 'must be an object');
  return value;
}

interface Present {
  readonly required?: boolean;
}

export function readString(obj: Fields, key: string, path: string, opts: Present & { readonly nonEmpty?: boolean } = {}): string | undefined {
  const v = obj[key];
  if (v === undefined || v === null) {
    if (opts.required) invalid(at(path, key), 'is required');
    return undefined;
  }
  if (typeof v !== 'string') invalid(at(path, key), 'must be a string');
  if (opts.nonEmpty && v.length === 0) invalid(at(path, key), 'must not be empty');
  return v;
}

type NumberBounds = Present & { readonly min?: number; readonly max?: number };

// The field's path is built only for an error message: these run for every optional field of
// every request.
function readNumeric(obj: Fields, key: string, path: string, opts: NumberBounds, integer: boolean): number | undefined {
  const v = obj[key];
  if (v === undefined || v === null) {
    if (opts.required) invalid(at(path, key), 'is required');
    return undefined;
  }
  if (typeof v !== 'number' || !Number.isFinite(v)) invalid(at(path, key), integer ? 'must be an integer' : 'must be a number');
  if (integer && !Number.isSafeInteger(v)) invalid(at(path, key), 'must be an integer');
  if (opts.min !== undefined && v < opts.min) invalid(at(path, key), `must be >= ${opts.min}`);
  if (opts.max !== undefined && v > opts.max) invalid(at(path, key), `must be <= ${opts.max}`);
  return v;
}

export function readNumber(obj: Fields, key: string, path: string, opts: NumberBounds & { readonly integer?: boolean } = {}): number | undefined {
  return readNumeric(obj, key, path, opts, opts.integer === true);
}

export function readInteger(obj: Fields, key: string, path: string, opts: NumberBounds = {}): number | undefined {
  return readNumeric(obj, key, path, opts, true);
}

export function readBoolean(obj: Fields, key: string, path: string): boolean | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') invalid(at(path, key), 'must be a boolean');
  return v;
}

export function readEnum<T extends string>(obj: Fields, key: string, path: string, values: readonly T[], opts: Present = {}): T | undefined {
  const v = readString(obj, key, path, opts);
  if (v === undefined) return undefined;
  if (!(values as readonly string[]).includes(v)) invalid(at(path, key), `must be one of ${values.join(', ')}`);
  return v as T;
}

/** `stop`-like fields: a string or an array of strings, as an array. */
export function readStringOrList(obj: Fields, key: string, path: string, opts: { readonly maxItems?: number } = {}): string[] {
  const v = obj[key];
  if (v === undefined || v === null) return [];
  if (typeof v === 'string') return [v];
  if (!Array.isArray(v) || !v.every((s): s is string => typeof s === 'string')) {
    invalid(at(path, key), 'must be a string or an array of strings');
  }
  if (opts.maxItems !== undefined && v.length > opts.maxItems) invalid(at(path, key), `must have at most ${opts.maxItems} items`);
  return v;
}
