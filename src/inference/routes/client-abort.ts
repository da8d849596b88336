import type { FastifyReply } from 'fastify';
import { Cancellation, type CancelSignal } from '../../shared/cancel-signal.ts';
import { HttpError } from '../../shared/errors.ts';

/** The client hung up before its answer was complete (nginx's 499); nothing more can reach it. */
export class ClientClosedError extends HttpError {
  constructor() {
    super(499, 'client closed request');
    this.name = 'ClientClosedError';
  }
}

export interface ClientAbort {
  /** Aborted (with a ClientClosedError) when the client's connection closes before the answer is complete. */
  readonly signal: CancelSignal;
  /** Stops watching the connection; call it when the exchange is over. */
  dispose(): void;
}

/**
 * Ties a Cancellation to the client's connection, so a client that goes away aborts the
 * upstream call made for it. The response's 'close' fires when the answer is complete or when its
 * connection closes first; only the second aborts. The listener is removed by dispose(), so a
 * keep-alive connection serving many requests collects no listeners.
 */
export function abortOnClientClose(reply: FastifyReply): ClientAbort {
  const controller = new Cancellation();
  const res = reply.raw;
  const onClose = () => {
    if (!res.writableFinished) controller.abort(new ClientClosedError());
  };
  if (res.destroyed || res.socket?.destroyed) onClose();
  else res.on('close', onClose);
  return { signal: controller, dispose: () => void res.off('close', onClose) };
}
