import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { guardInput, type GuardSchema } from './input-guard.ts';

type Validate = (data: unknown) => { value: unknown } | { error: Error & { validation: FastifySchemaValidationError[] } };

/**
 * A route `validatorCompiler` that checks TypeBox schemas as written: no type coercion, no
 * defaults, no removal. The app's Ajv coerces (`"5"` becomes 5, `true` becomes 1), which is right
 * for query strings but wrong for a signed money request, where a string where a number belongs
 * must be refused (400 naming the field), never reinterpreted. Errors are reshaped into Ajv's
 * form so the one error handler words them like every other validation error.
 */
export function strictValidatorCompiler({ schema, httpPart, method }: { schema: unknown; httpPart?: string; method?: string }): Validate {
  const checker = Compile(schema as TSchema);
  // Fastify hands a missing body over as null; a body schema that requires nothing accepts it,
  // except on PUT and PATCH, whose body is the change itself (an empty one is a client mistake).
  const bodyOptional =
    httpPart === 'body' && method !== 'PUT' && method !== 'PATCH' && !((schema as { required?: unknown[] }).required?.length);
  return (data) => {
    if (data === null && bodyOptional) return { value: undefined };
    if (checker.Check(data)) {
      const guard = guardInput(schema as GuardSchema, data);
      if (!guard) return { value: data };
      return { error: Object.assign(new Error(guard.message ?? 'is not valid'), { validation: [guard] }) };
    }
    const first = firstError(checker.Errors(data) as unknown as TypeBoxError[], data);
    const error = Object.assign(new Error(first.message ?? 'is not valid'), { validation: [first] });
    return { error };
  };
}

interface TypeBoxError {
  readonly keyword: string;
  readonly instancePath: string;
  readonly schemaPath: string;
  readonly params: Record<string, unknown>;
  readonly message?: string;
}

function firstError(errors: readonly TypeBoxError[], data: unknown): FastifySchemaValidationError {
  // `additionalProperties: false` reports a `boolean` error for the property besides the
  // keyword's own; the keyword's one names the field.
  const e = errors.find((x) => !(x.keyword === 'boolean' && x.schemaPath.endsWith('/additionalProperties'))) ?? errors[0];
  if (!e) return { keyword: 'type', instancePath: '', schemaPath: '#', params: {}, message: 'is not valid' };
  const base = { instancePath: e.instancePath, schemaPath: e.schemaPath };
  if (e.keyword === 'required') {
    const missing = (e.params.requiredProperties as string[] | undefined)?.find((p) => !hasOwn(valueAt(data, e.instancePath), p));
    return { ...base, keyword: 'required', params: { missingProperty: missing ?? '' }, message: e.message };
  }
  if (e.keyword === 'additionalProperties') {
    const extra = (e.params.additionalProperties as string[] | undefined)?.[0] ?? '';
    return { ...base, keyword: 'additionalProperties', params: { additionalProperty: extra }, message: e.message };
  }
  const value = valueAt(data, e.instancePath);
  if (e.keyword === 'type' && typeof value === 'number' && !Number.isFinite(value)) {
    // Only a JSON number too large for float64 arrives as Infinity.
    return { ...base, keyword: 'type', params: e.params, message: 'must be a finite number' };
  }
  return { ...base, keyword: e.keyword, params: e.params, message: e.message };
}

function hasOwn(o: unknown, key: string): boolean {
  return o !== null && typeof o === 'object' && Object.prototype.hasOwnProperty.call(o, key);
}

/** The value at a JSON pointer such as `/amount` (enough for the flat bodies validated here). */
function valueAt(data: unknown, pointer: string): unknown {
  let v: unknown = data;
  for (const part of pointer.split('/').slice(1)) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
  }
  return v;
}
