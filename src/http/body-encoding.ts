import type { FastifyInstance } from 'fastify';
import { HttpError } from '../shared/errors.ts';

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;
/** `identity` (or no header) is a body sent as it is. */
const IDENTITY = /^\s*(?:identity\s*)?$/i;

/**
 * Bodies are read as sent, as UTF-8, and a body that cannot be read so is refused with 415 before
 * it is parsed:
 * - a declared charset other than UTF-8 (`charset=latin1`) would have its text read wrongly; no
 *   charset, `utf-8` or `utf8` is accepted (docs/api-decisions.md, "Contract: sixth audit");
 * - a `Content-Encoding` (gzip, deflate, br) is not decoded here, so a compressed body reached the
 *   JSON parser as bytes and was answered 400 `malformed JSON body`, which sent a client looking
 *   for a mistake in JSON it wrote correctly (RFC 9110: an unsupported content coding is a 415;
 *   "Inference: twelfth audit").
 * A preParsing hook, not onRequest: the routes' own onRequest guards (key 401, verified email
 * 403, rate limit 429) come first, as for every other body error. One callback hook for both: it
 * runs on every request, and a promise per request is garbage for nothing when the checks are
 * synchronous.
 */
export function refuseUnreadableBodies(app: FastifyInstance): void {
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const headers = request.headers;
    const type = headers['content-type'];
    const m = type === undefined ? null : CHARSET.exec(type);
    if (m && !/^utf-?8$/i.test(m[1]!)) return done(new HttpError(415, 'unsupported charset; send UTF-8'));
    const encoding = headers['content-encoding'];
    // Only a body can be encoded; the header on a bodiless GET changes nothing.
    if (encoding !== undefined && !IDENTITY.test(encoding) && (headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0)) {
      return done(new HttpError(415, 'unsupported content-encoding; send the body uncompressed'));
    }
    done(null, payload);
  });
}
