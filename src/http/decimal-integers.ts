import type { FastifyRequest } from 'fastify';
import { badRequest } from '../shared/errors.ts';

/** The parts of a JSON Schema of a path or query parameter this rule reads. */
export interface IntegerParamSchema {
  readonly type?: string | string[];
}

interface PartSchema {
  readonly properties?: Record<string, IntegerParamSchema>;
}

interface RouteSchema {
  readonly params?: PartSchema;
  readonly querystring?: PartSchema;
}

/** How an integer parameter is spelled: decimal digits (a sign is left for the range to refuse). */
const DECIMAL_INTEGER = /^-?[0-9]+$/;

/**
 * The first integer path or query parameter of the request not spelled in decimal digits. The
 * app's Ajv coerces path and query strings with JavaScript's Number, which reads `0x10` as 16 and
 * `1e1`, `10.0`, `+10` and ` 10` as 10, so every id had other spellings that reached another row
 * (docs/api-decisions.md, "Market API: eighteenth audit"). Leading zeros are still decimal.
 */
export function nonDecimalInteger<S extends IntegerParamSchema>(request: FastifyRequest): { name: string; schema: S | undefined } | undefined {
  const schema = request.routeOptions.schema as RouteSchema | undefined;
  return checkDecimal<S>(schema?.params, request.params) ?? checkDecimal<S>(schema?.querystring, request.query);
}

function checkDecimal<S>(part: PartSchema | undefined, values: unknown): { name: string; schema: S | undefined } | undefined {
  if (!part?.properties || values === null || typeof values !== 'object') return undefined;
  for (const [name, value] of Object.entries(values as Record<string, unknown>)) {
    const s = part.properties[name];
    const type = Array.isArray(s?.type) ? s.type : [s?.type];
    if (!type.includes('integer') || typeof value !== 'string' || DECIMAL_INTEGER.test(value)) continue;
    return { name, schema: s as S | undefined };
  }
  return undefined;
}

/**
 * A preValidation hook for surfaces whose schema errors read `invalid <param>: must be integer`
 * (the operator API, the dashboard API): the other spellings of an integer are that 400 too.
 */
export async function refuseNonDecimalIntegersLowerCase(request: FastifyRequest): Promise<void> {
  const bad = nonDecimalInteger(request);
  if (bad) throw badRequest(`invalid ${bad.name}: must be integer`);
}
