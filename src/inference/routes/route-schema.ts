/**
 * The OpenAPI part of every model endpoint. Bodies are validated by the formats layer (its 400s
 * name the field in the mirrored protocol's terms), not by a route schema, whose messages would
 * differ.
 */
export const INFERENCE_ROUTE_SCHEMA = {
  tags: ['inference'],
  security: [{ bearer: [] }],
} as const;
