import type { FastifyRequest } from 'fastify';

/** Fastify's request.ip already honours X-Forwarded-For only when trustProxy is on. */
export function clientIp(request: FastifyRequest): string {
  return request.ip || request.socket.remoteAddress || 'unknown';
}
