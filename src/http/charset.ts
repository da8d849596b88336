import type { FastifyInstance } from 'fastify';
import { HttpError } from '../shared/errors.ts';

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;

/** Whether a request carries body bytes (a length above 0, or chunked). */
function hasBody(headers: { 'content-length'?: string; 'transfer-encoding'?: string }): boolean {
  return headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
}

/**
 * Bodies are read as UTF-8 bytes as sent. A request that declares another charset
 * (`charset=latin1`) would have its text read wrongly, so it is refused with 415 before the body
 * is parsed; no charset, `utf-8` or `utf8` is accepted. A body declared compressed
 * (`content-encoding: gzip`, `deflate`, `br`, ...) is refused the same way: nothing here
 * decompresses, so its bytes only ever met the JSON parser as `malformed JSON body`, which sent a
 * client looking for a fault in its JSON (RFC 9110 names 415 for an unsupported content coding;
 * docs/api-decisions.md, "Market API: twelfth audit"). A preParsing hook, not onRequest: the
 * routes' own onRequest guards (key 401, verified email 403, rate limit 429) come first, as for
 * every other body error (docs/api-decisions.md, "Contract: sixth audit").
 */
export function refuseForeignCharsets(app: FastifyInstance): void {
  // A callback hook, not an async one: it runs on every request, and a promise per request is
  // garbage for nothing when the check is synchronous.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const type = request.headers['content-type'];
    const m = type === undefined ? null : CHARSET.exec(type);
    const encoding = request.headers['content-encoding'];
    if (m && !/^utf-?8$/i.test(m[1]!)) done(new HttpError(415, 'unsupported charset; send UTF-8'));
    else if (encoding !== undefined && !/^\s*(identity)?\s*$/i.test(encoding) && hasBody(request.headers)) {
      done(new HttpError(415, 'unsupported content-encoding; send the body uncompressed'));
    } else done(null, payload);
  });
}
