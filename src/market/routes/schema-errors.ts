import type { FastifyRequest } from 'fastify';
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import { nonDecimalInteger } from '../../http/decimal-integers.ts';
import { GUARD_KEYWORDS } from '../../http/input-guard.ts';
import { strictValidatorCompiler } from '../../http/strict-validator.ts';
import { HttpError } from '../../shared/errors.ts';
import { WALLET_PATTERN } from './read-schemas.ts';

interface ParamSchema {
  readonly type?: string | string[];
  readonly enum?: readonly unknown[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
}

interface PartSchema {
  readonly properties?: Record<string, ParamSchema>;
}

interface RouteSchema {
  readonly params?: PartSchema;
  readonly querystring?: PartSchema;
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
  if (s.pattern === WALLET_PATTERN) return SHAPES.wallet!;
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
    // A route whose query is closed (the pool ledger, a wallet's withdrawals) names what it does not take.
    if (e.keyword === 'additionalProperties') return new HttpError(400, `Unknown parameter: ${String(params.additionalProperty)}`);
    const name = e.instancePath.split('/').filter(Boolean)[0] ?? dataVar;
    if (GUARD_KEYWORDS.has(e.keyword)) return new HttpError(400, `Invalid ${name}: ${e.message}`);
    const group = dataVar === 'params' ? schema?.params : dataVar === 'querystring' ? schema?.querystring : undefined;
    return new HttpError(400, `Invalid ${name}: ${describeRule(name, group?.properties?.[name])}`);
  };
}

/**
 * A preValidation hook: a list pages by `page` or by `offset`, and a request with both is a 400
 * naming both (before either is checked), whatever they say: which one the client meant is not
 * for the service to guess (docs/api-decisions.md, "Market API: eleventh audit").
 */
export async function refusePageWithOffset(request: FastifyRequest): Promise<void> {
  const takes = (request.routeOptions.schema as RouteSchema | undefined)?.querystring?.properties;
  const query = request.query as Record<string, unknown> | null;
  if (!takes?.page || !takes.offset || !query || !('page' in query) || !('offset' in query)) return;
  throw new HttpError(400, 'Invalid page and offset: send one of them, not both');
}

/**
 * A preValidation hook: a query parameter the route takes as one value, given more than once
 * (`limit=5&limit=5`), is a 400 that says so. The query parser makes it a list, which the
 * schema then refused with the parameter's rule (`Invalid limit: must be between 1 and 100`),
 * wrong about a value that was in range (docs/api-decisions.md, "Market API: seventeenth audit").
 * Which of the values was meant is not for the service to guess. Parameters a route does not
 * take are left to the route (ignored, or named as unknown).
 */
export async function refuseRepeatedParameters(request: FastifyRequest): Promise<void> {
  const takes = (request.routeOptions.schema as RouteSchema | undefined)?.querystring?.properties;
  const query = request.query as Record<string, unknown> | null;
  if (!takes || !query || typeof query !== 'object') return;
  for (const [name, value] of Object.entries(query)) {
    const s = takes[name];
    if (!s || !Array.isArray(value)) continue;
    const type = Array.isArray(s.type) ? s.type : [s.type];
    if (!type.includes('array')) throw new HttpError(400, `Invalid ${name}: given more than once`);
  }
}

/**
 * A preValidation hook: an integer path or query parameter must be written in decimal digits
 * (nonDecimalInteger); the other spellings are the same 400 `Invalid <param>: <rule>` as any
 * other malformed value (docs/api-decisions.md, "Market API: inputs and shapes").
 */
export async function refuseNonDecimalIntegers(request: FastifyRequest): Promise<void> {
  const bad = nonDecimalInteger<ParamSchema>(request);
  if (bad) throw new HttpError(400, `Invalid ${bad.name}: ${describeRule(bad.name, bad.schema)}`);
}

/**
 * strictValidatorCompiler (no coercion: a signed body is checked as sent) whose path and query
 * parameter errors read like every market route's, `Invalid wallet: must be 0x followed by 40 hex
 * digits` rather than the schema's pattern; body errors keep the body's wording.
 */
export function marketSignedValidatorCompiler(route: Parameters<typeof strictValidatorCompiler>[0]): ReturnType<typeof strictValidatorCompiler> {
  const validate = strictValidatorCompiler(route);
  const part = route.httpPart;
  if (part !== 'params' && part !== 'querystring') return validate;
  const format = marketSchemaErrors({ [part]: route.schema as PartSchema });
  return (data) => {
    const r = validate(data);
    return 'error' in r ? { error: format(r.error.validation, part) as HttpError & { validation: FastifySchemaValidationError[] } } : r;
  };
}
