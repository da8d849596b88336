import type { FastifyReply } from 'fastify';
import type { RateDecision } from '../ratelimit/limiter.ts';

/** The OpenAI-style rate-limit headers, and retry-after when refused. */
export function setRateLimitHeaders(reply: FastifyReply, d: RateDecision): void {
  void reply.header('x-ratelimit-limit-requests', String(d.limit));
  void reply.header('x-ratelimit-remaining-requests', String(d.remaining));
  void reply.header('x-ratelimit-reset-requests', `${Math.ceil(d.resetMs / 1000)}s`);
  if (!d.allowed) void reply.header('retry-after', String(Math.max(1, Math.ceil(d.resetMs / 1000))));
}
