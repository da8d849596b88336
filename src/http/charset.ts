import type { FastifyInstance } from 'fastify';
import { HttpError } from '../shared/errors.ts';

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;

/**
 * Bodies are read as UTF-8. A request that declares another charset (`charset=latin1`) would
 * have its text read wrongly, so it is refused with 415 before the body is parsed; no charset,
 * `utf-8` or `utf8` is accepted. A preParsing hook, not onRequest: the routes' own onRequest
 * guards (key 401, verified email 403, rate limit 429) come first, as for every other body
 * error (docs/api-decisions.md, "Contract: sixth audit").
 */
export function refuseForeignCharsets(app: FastifyInstance): void {
  // A callback hook, not an async one: it runs on every request, and a promise per request is
  // garbage for nothing when the check is synchronous.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const type = request.headers['content-type'];
    const m = type === undefined ? null : CHARSET.exec(type);
    if (m && !/^utf-?8$/i.test(m[1]!)) done(new HttpError(415, 'unsupported charset; send UTF-8'));
    else done(null, payload);
  });
}
