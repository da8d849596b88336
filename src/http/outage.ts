/**
 * Whether an error means a dependency (the database, Redis) cannot be reached right now, rather
 * than a bug: the request may well succeed in a moment, so it is a 503 with `retry-after`, not a
 * 500. Recognised by the drivers' codes, never by asking the dependency again.
 */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH']);
// PostgreSQL SQLSTATEs: connection exceptions (08xxx), too many connections, shutting down or starting up.
const PG_UNAVAILABLE = /^(08...|53300|57P01|57P02|57P03)$/;
const MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Cannot use a pool after calling end on the pool',
  'Client has encountered a connection error',
  'driver has already been destroyed',
  'PGlite is closed',
  "Stream isn't writeable",
  'Connection is closed',
  'Reached the max retries per request limit',
];

export function isOutage(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message, name } = e as { code?: unknown; message?: unknown; name?: unknown };
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || PG_UNAVAILABLE.test(code))) return true;
    if (name === 'MaxRetriesPerRequestError') return true;
    if (typeof message === 'string' && MESSAGES.some((m) => message.includes(m))) return true;
    // AggregateError (a connect to several addresses) carries the real ones in `errors`.
    const inner = (e as { errors?: unknown }).errors;
    if (Array.isArray(inner) && inner.some((x) => isOutage(x))) return true;
  }
  return false;
}
