import type { FastifyInstance } from 'fastify';
import { HttpError } from '../shared/errors.ts';

/** `identity` (or no header) is a body sent as it is. */
const IDENTITY = /^\s*(?:identity\s*)?$/i;

/**
 * Bodies are read as sent: nothing here decodes `Content-Encoding` (gzip, deflate, br), so a
 * compressed body reached the JSON parser as bytes and was answered 400 `malformed JSON body`,
 * which sends a client looking for a mistake in JSON it wrote correctly. It is refused with 415
 * naming the encoding instead (RFC 9110 §15.5.16: an unsupported content coding is a 415). A
 * preParsing hook, as the charset check (charset.ts): after the routes' onRequest guards, so the
 * key, email and rate-limit answers come first (docs/api-decisions.md, "Inference: twelfth audit").
 */
export function refuseEncodedBodies(app: FastifyInstance): void {
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const encoding = request.headers['content-encoding'];
    // Only a body can be encoded; the header on a bodiless GET changes nothing.
    const hasBody = request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
    if (hasBody && encoding !== undefined && !IDENTITY.test(encoding)) done(new HttpError(415, 'unsupported content encoding; send the body uncompressed'));
    else done(null, payload);
  });
}
