import { AjvCompiler } from '@fastify/ajv-compiler';
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import { guardInput, type GuardSchema } from './input-guard.ts';

type AjvOptions = { customOptions: Record<string, unknown> } & Record<string, unknown>;
type RouteDefinition = { schema: unknown; httpPart?: string; method: string; url: string };
interface AjvValidate {
  (data: unknown, ctx?: unknown): boolean;
  errors?: unknown;
  schemaEnv?: unknown;
}

/**
 * The app's `schemaController.compilersFactory.buildValidator`: Fastify's own Ajv compiler, used
 * twice. Query strings, paths and headers are text, so they are coerced (`"5"` becomes 5, one
 * value becomes a one-item array); a JSON body already has types, so it is checked as sent: an
 * admin `credits: true` or `title: ["x"]` is a 400, never 1 credit or "x". Every part then goes
 * through guardInput (finite numbers, safe integers, text without NUL or lone surrogates).
 */
export function appValidators() {
  const pool = AjvCompiler();
  return (externalSchemas: Parameters<typeof pool>[0], options: AjvOptions) => {
    const coercing = pool(externalSchemas, options);
    const exact = pool(externalSchemas, { ...options, customOptions: { ...options.customOptions, coerceTypes: false } });
    return (route: RouteDefinition) => {
      const validate = (route.httpPart === 'body' ? exact : coercing)(route as never) as AjvValidate;
      return guarded(validate, route.schema as GuardSchema);
    };
  };
}

function guarded(validate: AjvValidate, schema: GuardSchema): AjvValidate {
  const wrapper: AjvValidate = (data, ctx) => {
    if (!validate(data, ctx)) {
      wrapper.errors = validate.errors;
      return false;
    }
    // Ajv may have replaced the root (a coerced one-item array): read it back from the parent.
    const c = ctx as { parentData?: Record<string, unknown>; parentDataProperty?: string } | undefined;
    const value = c?.parentData && c.parentDataProperty ? c.parentData[c.parentDataProperty] : data;
    const e: FastifySchemaValidationError | null = guardInput(schema, value);
    wrapper.errors = e ? [e] : null;
    return e === null;
  };
  // Fastify hands Ajv's functions the parent so that coercion can replace a root value.
  wrapper.schemaEnv = validate.schemaEnv;
  return wrapper;
}
