import type { FastifyRequest } from 'fastify';

/**
 * Fastify's request.ip honours X-Forwarded-For only when TRUST_PROXY is on, and then reads the
 * entry the operator's nearest proxy appended (a hop count; src/app.ts), not the client's own.
 */
export function clientIp(request: FastifyRequest): string {
  return request.ip || request.socket.remoteAddress || 'unknown';
}
