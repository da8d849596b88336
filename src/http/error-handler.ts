import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../shared/errors.ts';
import { isOutage } from './outage.ts';
import { errorBody, surfaceOf } from './surface.ts';
import { validationMessage } from './validation-message.ts';

interface Rendered {
  status: number;
  message: string;
  headers?: Readonly<Record<string, string>>;
}

function render(err: FastifyError | Error): Rendered {
  if (err instanceof HttpError) return { status: err.status, message: err.message, headers: err.headers };
  const fe = err as FastifyError;
  if (fe.validation) return { status: 400, message: validationMessage(fe.validation, fe.validationContext) };
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, message: 'malformed JSON body' };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, message: 'request body too large' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, message: 'unsupported content type; send application/json' };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, message: 'content length does not match the body' };
  }
  if (err instanceof SyntaxError) return { status: 400, message: 'malformed JSON body' };
  if (isOutage(err)) return { status: 503, message: 'service temporarily unavailable, try again', headers: { 'retry-after': '5' } };
  const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500;
  if (status >= 400 && status < 500) return { status, message: fe.message };
  return { status: status >= 500 && status < 600 ? status : 500, message: 'internal error' };
}

/** The one error handler and not-found handler; each surface gets its own body shape. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err, request, reply) => {
    const r = render(err instanceof Error ? err : new Error(String(err)));
    if (r.status >= 500) request.log.error({ err }, 'request failed');
    const body = errorBody(surfaceOf(request.url), r.message);
    if (reply.sent || reply.raw.headersSent) {
      // A stream already started: nothing can be sent in the documented shape any more.
      reply.raw.end();
      return;
    }
    if (r.headers) void reply.headers(r.headers);
    return reply.code(r.status).send(body);
  });

  app.setNotFoundHandler((request, reply) => {
    const surface = surfaceOf(request.url);
    const message = surface === 'market' ? 'Not found' : `not found: ${request.method} ${request.url.split('?')[0]}`;
    return reply.code(404).send(errorBody(surface, message));
  });
}

/**
 * Fastify's `frameworkErrors`: errors the router raises before any route runs (a malformed
 * percent-encoding, a path parameter over the router's length limit), answered in the shape of
 * the surface like every other error instead of Fastify's own body.
 */
export function frameworkErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const tooLong = err.code === 'FST_ERR_MAX_PARAM_LENGTH';
  const status = tooLong ? 414 : err.code === 'FST_ERR_BAD_URL' ? 400 : 500;
  const message = tooLong ? 'Path parameter too long' : status === 400 ? 'Malformed URL' : 'internal error';
  void reply.code(status).send(errorBody(surfaceOf(request.url), message));
}
