import type { FastifyReply } from 'fastify';
import type { OutgoingHttpHeaders } from 'node:http';

export interface SseResponse {
  /**
   * Queues text for the client. What is queued in one burst of work (the events parsed from one
   * upstream read) leaves in one write, at the next process.nextTick: one socket write per
   * upstream packet instead of one per event. Sending to a closed response does nothing.
   */
  send(text: string): void;
  /** The socket's buffer is full: wait for drained() before reading more from the upstream. */
  readonly full: boolean;
  /**
   * Resolves once the socket's buffer drained or the connection closed (at once when it is not
   * full), so a slow reader slows the upstream read instead of growing the process's memory.
   */
  drained(): Promise<void>;
  /** Writes what is queued and ends the response (idempotent). */
  end(): void;
  /** The client's connection is gone or the response ended. */
  readonly closed: boolean;
}

export const SSE_HEADERS: Readonly<OutgoingHttpHeaders> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  // Proxies (nginx) must not buffer the stream.
  'x-accel-buffering': 'no',
};

/**
 * Takes the response over from Fastify and sends 200 with the SSE headers plus every header the
 * route's hooks already set (x-request-id, x-ratelimit-*, x-svc-*). onResponse hooks (metrics,
 * the access log) still run when the raw response finishes.
 */
export function startSse(reply: FastifyReply): SseResponse {
  const headers: OutgoingHttpHeaders = {};
  const set = reply.getHeaders();
  for (const name in set) if (set[name] !== undefined) headers[name] = set[name];
  for (const name in SSE_HEADERS) headers[name] = SSE_HEADERS[name];
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, headers);
  const closed = () => res.destroyed || res.writableEnded;
  let pending = '';
  let scheduled = false;
  let full = false;

  const flush = () => {
    scheduled = false;
    if (pending === '' || closed()) return;
    const text = pending;
    pending = '';
    if (!res.write(text)) full = true;
  };

  return {
    get closed() {
      return closed();
    },
    get full() {
      return full && !closed();
    },
    send(text) {
      if (closed()) return;
      pending += text;
      if (!scheduled) {
        scheduled = true;
        process.nextTick(flush);
      }
    },
    drained() {
      if (!full || closed()) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const done = () => {
          full = false;
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    },
    end() {
      flush();
      if (!closed()) res.end();
    },
  };
}
