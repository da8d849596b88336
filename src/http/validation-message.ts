import type { FastifySchemaValidationError } from 'fastify/types/schema.js';

/**
 * Turns the first schema violation into a message that names the field, e.g.
 * `invalid limit: must be <= 100` or `missing required field: model`.
 */
export function validationMessage(errors: FastifySchemaValidationError[], context: string | undefined): string {
  const e = errors[0];
  if (!e) return 'invalid request';
  const path = e.instancePath
    .split('/')
    .filter(Boolean)
    .map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`))
    .join('')
    .replace(/^\./, '');
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'required') {
    const field = [path, String(params.missingProperty)].filter(Boolean).join('.');
    return `missing required field: ${field}`;
  }
  if (e.keyword === 'additionalProperties') {
    const field = [path, String(params.additionalProperty)].filter(Boolean).join('.');
    return `unknown field: ${field}`;
  }
  const where = path || (context === 'body' ? 'body' : context) || 'request';
  if (e.keyword === 'enum') {
    const allowed = (params.allowedValues as unknown[] | undefined)?.join(', ');
    return `invalid ${where}: must be one of ${allowed}`;
  }
  return `invalid ${where}: ${e.message ?? 'is not valid'}`;
}
