import type { FastifyInstance } from 'fastify';

/**
 * Installed in the market (`/api`) and operator (`/admin`) contexts, whose routes declare every
 * body they read in their schema; the inference routes read bodies without one, so they keep
 * Fastify's reading. There, a request to a route that takes no body (its schema declares none),
 * declaring a content type but sending no bytes, is a request without a body. Clients that set `content-type: application/json` on
 * every call (a shared header map, `curl -H`, Python requests without `data=`) sent the
 * operator's `activate`, `feature`, `cancel` and `api-keys` calls, and `DELETE /api/keys/:key`,
 * an empty "JSON body", which Fastify's parser refuses: 400 `malformed JSON body` for a body
 * nobody meant to send. Without the content type Fastify reads no body, as it does for any
 * bodyless request. Routes that take a body keep refusing an empty one (docs/api-decisions.md,
 * "Market API: seventh audit"). A preParsing hook: Fastify picks the body parser after it.
 */
export function readEmptyBodiesAsNone(app: FastifyInstance): void {
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const h = request.headers;
    // No bytes follow: neither a length above 0 nor a chunked body (fetch sends a DELETE's empty body with neither).
    const noBytes = h['transfer-encoding'] === undefined && (h['content-length'] === undefined || h['content-length'] === '0');
    const schema = request.routeOptions.schema;
    // A route without any schema (a test probe) declares nothing either way: it keeps Fastify's reading.
    if (h['content-type'] !== undefined && noBytes && schema !== undefined && schema.body === undefined) {
      delete h['content-type'];
    }
    done(null, payload);
  });
}
