import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Sets `request-id`, the header Anthropic's API names its request id with, to the request's id
 * (the `x-request-id` every answer carries). The Anthropic SDKs read only that name, for a
 * message's `_request_id` and an error's `requestID`, which is what a user quotes to support.
 * Mounted on the routes that take Anthropic's `x-api-key` (the routes Anthropic clients call),
 * ahead of the guard, so a 401, 403 or 429 has it too.
 */
export function anthropicRequestId(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  void reply.header('request-id', request.id);
  done();
}
