import type { FastifyReply } from 'fastify';
import type { OutgoingHttpHeaders } from 'node:http';

export interface SseResponse {
  /**
   * Queues text on the response. Resolves at once unless the socket's buffer is full, then once it
   * drained (or the connection closed): a slow reader slows the upstream read, never the process's
   * memory. Writing to a closed response does nothing.
   */
  write(text: string): Promise<void>;
  /** Ends the response (idempotent). */
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
 *
 * Writes are corked until the current burst of work is done (process.nextTick), so the parts an
 * upstream sent in one packet leave in one packet too.
 */
export function startSse(reply: FastifyReply): SseResponse {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = value;
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, { ...headers, ...SSE_HEADERS });
  let corked = false;
  const uncork = () => {
    corked = false;
    res.uncork();
  };
  const closed = () => res.destroyed || res.writableEnded;

  return {
    get closed() {
      return closed();
    },
    write(text) {
      if (closed()) return Promise.resolve();
      if (!corked) {
        corked = true;
        res.cork();
        process.nextTick(uncork);
      }
      if (res.write(text)) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    },
    end() {
      if (!closed()) res.end();
    },
  };
}
