import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * One log line per request, when its answer is complete: request id (the logger's binding),
 * method, url, client address, status and response time, as flat fields. Fastify's own logging
 * writes two lines (one on arrival) under `req` and `res` keys, which pino passes through the
 * redaction of credential headers, copying them (some 7 KB of garbage per request). No header is
 * logged here, so nothing needs redacting. Fastify's other lines (errors, streams that failed
 * after their headers) are kept.
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = {
      method: request.method,
      url: request.url,
      remoteAddress: request.raw.socket?.remoteAddress,
      statusCode: reply.statusCode,
      responseTime: reply.elapsedTime,
    };
    if (error) request.log.error({ ...line, err: error }, 'request errored');
    else request.log.info(line, 'request completed');
  }
}
