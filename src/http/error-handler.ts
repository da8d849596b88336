import type { Socket } from 'node:net';
import type { ConnectionError, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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

/** The 404 of a path and method no route serves, in the shape of its surface. */
export function notFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const surface = surfaceOf(request.url);
  const message = surface === 'market' ? 'Not found' : `not found: ${request.method} ${request.url.split('?')[0]}`;
  return reply.code(404).send(errorBody(surface, message));
}

/** The one error handler and not-found handler; each surface gets its own body shape. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err, request, reply) => {
    const r = render(err instanceof Error ? err : new Error(String(err)));
    // Fastify reads the body of an unmatched request before its not-found handler runs; that
    // body's errors (malformed, empty, too large) would hide that nothing is there to take it.
    // The service's own refusals (the rate limit, the admin token) come first and stay.
    if (request.is404 && !(err instanceof HttpError) && r.status < 500 && !reply.sent) return notFound(request, reply);
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

  app.setNotFoundHandler(notFound);
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

const REQUEST_LINE = /^[A-Z]+ (\S+) HTTP\//;
const CLIENT_ERRORS: Readonly<Record<string, readonly [number, string, string]>> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'request timeout'],
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'request headers too large'],
};

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser refused (headers over the size
 * limit, a malformed request line or header) never reaches a route or the error handler, and
 * Fastify's own answer is `{"error","message","statusCode"}` on every surface. This one answers in
 * the surface's shape, the surface read from the request line in the bytes the parser kept; when
 * they do not hold it (a request line split from the headers that overflowed) the plain shape.
 */
export function clientErrorHandler(err: ConnectionError, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, message] = CLIENT_ERRORS[err.code ?? ''] ?? [400, 'Bad Request', 'malformed HTTP request'];
  // Node hands the bytes as a Buffer, whatever Fastify's type says (it types their JSON form).
  const raw: unknown = err.rawPacket;
  const path = Buffer.isBuffer(raw) ? REQUEST_LINE.exec(raw.toString('latin1'))?.[1] : undefined;
  const body = JSON.stringify(errorBody(surfaceOf(path ?? '/'), message));
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  }
  socket.destroy(err);
}
