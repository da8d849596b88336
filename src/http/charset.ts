import type { FastifyInstance } from 'fastify';
import { HttpError } from '../shared/errors.ts';

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;

/**
 * Bodies are read as UTF-8. A request that declares another charset (`charset=latin1`) would
 * have its text read wrongly, so it is refused with 415 before the body is parsed; no charset,
 * `utf-8` or `utf8` is accepted.
 */
export function refuseForeignCharsets(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    const type = request.headers['content-type'];
    if (type === undefined) return;
    const m = CHARSET.exec(type);
    if (m && !/^utf-?8$/i.test(m[1]!)) throw new HttpError(415, 'unsupported charset; send UTF-8');
  });
}
