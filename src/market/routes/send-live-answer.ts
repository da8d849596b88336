import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AnswerDeps, LiveAnswers } from '../live/live-answers.ts';

/** Sends a read's answer from `live` (reused while exact) with its ETag; 304 when the client has it. */
export async function sendLiveAnswer(
  live: LiveAnswers,
  req: FastifyRequest,
  reply: FastifyReply,
  deps: AnswerDeps,
  compute: () => Promise<object>,
): Promise<FastifyReply> {
  const answer = await live.get(req.url, deps, compute, (a) => String(reply.serialize(a)));
  void reply.header('etag', answer.etag);
  if (matches(req.headers['if-none-match'], answer.etag)) return reply.code(304).send();
  return reply.type('application/json; charset=utf-8').send(answer.body);
}

/** If-None-Match: `*` or a list of (possibly weak) tags. */
function matches(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.trim() === '*') return true;
  return value.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}
