import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import { GUARD_KEYWORDS } from '../../http/input-guard.ts';
import { HttpError } from '../../shared/errors.ts';

interface ParamSchema {
  readonly type?: string | string[];
  readonly enum?: readonly unknown[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
}

interface RouteSchema {
  readonly params?: { readonly properties?: Record<string, ParamSchema> };
  readonly querystring?: { readonly properties?: Record<string, ParamSchema> };
}

/** What a parameter must look like, in words, for parameters whose schema alone says it badly. */
const SHAPES: Record<string, string> = {
  id: 'must be a positive integer',
  market: 'must be a positive integer',
  wallet: 'must be 0x followed by 40 hex digits',
  ids: 'must be a comma-separated list of at most 50 market ids (positive integers)',
};

/** The rule a parameter's schema states, as the tail of `Invalid <name>: <rule>`. */
export function describeRule(name: string, s: ParamSchema | undefined): string {
  const shape = SHAPES[name];
  if (shape) return shape;
  if (!s) return 'is not valid';
  if (s.enum) return `must be one of ${s.enum.join(', ')}`;
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (type === 'integer' || type === 'number') {
    const kind = type === 'integer' ? 'an integer' : 'a number';
    if (s.minimum !== undefined && s.maximum !== undefined) return `must be between ${s.minimum} and ${s.maximum}`;
    if (s.minimum !== undefined) return `must be ${kind} >= ${s.minimum}`;
    if (s.maximum !== undefined) return `must be ${kind} <= ${s.maximum}`;
    return `must be ${kind}`;
  }
  if (s.minLength !== undefined && s.maxLength !== undefined) {
    return `must be between ${s.minLength} and ${s.maxLength} characters`;
  }
  if (s.minLength !== undefined) return `must be at least ${s.minLength} characters`;
  if (s.maxLength !== undefined) return `must be at most ${s.maxLength} characters`;
  return 'is not valid';
}

/**
 * A schemaErrorFormatter for the market's read routes: the first violation becomes a 400
 * `Invalid <param>: <rule>` (or `Missing required parameter: <param>`), the rule read from the
 * route's own schema so the message always matches what /openapi.json documents.
 */
export function marketSchemaErrors(schema: RouteSchema | undefined) {
  return (errors: FastifySchemaValidationError[], dataVar: string): Error => {
    const e = errors[0];
    if (!e) return new HttpError(400, 'Invalid request');
    const params = e.params as Record<string, unknown>;
    if (e.keyword === 'required') return new HttpError(400, `Missing required parameter: ${String(params.missingProperty)}`);
    const name = e.instancePath.split('/').filter(Boolean)[0] ?? dataVar;
    if (GUARD_KEYWORDS.has(e.keyword)) return new HttpError(400, `Invalid ${name}: ${e.message}`);
    const group = dataVar === 'params' ? schema?.params : dataVar === 'querystring' ? schema?.querystring : undefined;
    return new HttpError(400, `Invalid ${name}: ${describeRule(name, group?.properties?.[name])}`);
  };
}
