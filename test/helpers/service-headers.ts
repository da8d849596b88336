/**
 * The headers an inference answer may carry, all the service's own: the leak tests fail on any
 * other (an upstream's `openai-*`, `request-id`, `server`, ...).
 */
export const SERVICE_HEADERS: ReadonlySet<string> = new Set([
  'content-type', 'content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding', 'cache-control', 'x-accel-buffering',
  'x-request-id', 'x-ratelimit-limit-requests', 'x-ratelimit-remaining-requests', 'x-ratelimit-reset-requests', 'retry-after',
  'x-svc-model', 'x-svc-lane',
  // On errors no client retry clears (docs/api-decisions.md, "Errors no retry clears").
  'x-should-retry',
  // Every answer of the inference and market APIs (docs/api-decisions.md, "Market API: eleventh audit").
  'access-control-allow-origin', 'access-control-expose-headers',
]);
