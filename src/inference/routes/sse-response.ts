import type { FastifyReply } from 'fastify';
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

export interface SseResponse {
  /**
   * Queues text for the client. What is queued in one burst of work (the events parsed from one
   * upstream read) leaves in one write, at the next process.nextTick: one socket write per
   * upstream packet instead of one per event. Sending to a closed response does nothing.
   * `ascii`: the caller knows the text is ASCII. A write of such text only goes out as latin1,
   * the same bytes, for which Node needs neither the UTF-8 length of the (often rope) string nor
   * UTF-8 encoding: about 12 µs of a 22 KB streamed answer (docs/bench-gateway.md, "Session 27").
   */
  send(text: string, ascii?: boolean): void;
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

/** Longer text is taken as not ASCII: checking it would cost what writing it as latin1 saves. */
const CHECKED_ASCII_LENGTH = 4096;
// eslint-disable-next-line no-control-regex -- every character outside ASCII, control characters aside
const NOT_ASCII = /[^\u0000-\u007f]/;

/** Whether `text` is known to be ASCII: short text checked (send's `ascii`); longer, false. */
export function knownAscii(text: string): boolean {
  return text.length <= CHECKED_ASCII_LENGTH && !NOT_ASCII.test(text);
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
  return new SseWriter(res);
}

/**
 * A class rather than an object literal: a literal with getters is built by a runtime call, some
 * microseconds per stream (docs/bench-gateway.md, "Session 8").
 */
class SseWriter implements SseResponse {
  private pending = '';
  /** Everything in `pending` was sent as ASCII. */
  private pendingAscii = true;
  private scheduled = false;
  private isFull = false;
  private readonly flush = (): void => {
    this.scheduled = false;
    if (this.pending === '' || this.closed) return;
    const text = this.pending;
    const written = this.takeAscii() ? this.res.write(text, 'latin1') : this.res.write(text);
    if (!written) this.isFull = true;
  };

  constructor(private readonly res: ServerResponse) {}

  get closed(): boolean {
    return this.res.destroyed || this.res.writableEnded;
  }

  get full(): boolean {
    return this.isFull && !this.closed;
  }

  send(text: string, ascii = false): void {
    if (this.closed) return;
    this.pending += text;
    if (!ascii) this.pendingAscii = false;
    if (!this.scheduled) {
      this.scheduled = true;
      process.nextTick(this.flush);
    }
  }

  drained(): Promise<void> {
    if (!this.isFull || this.closed) return Promise.resolve();
    const { res } = this;
    return new Promise<void>((resolve) => {
      const done = () => {
        this.isFull = false;
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
  }

  end(): void {
    if (this.closed) return;
    // What is queued leaves with the end of the body: one socket write, not one and then another.
    const text = this.pending;
    if (text === '') this.res.end();
    else if (this.takeAscii()) this.res.end(text, 'latin1');
    else this.res.end(text);
  }

  /** Empties the queue (read its text first); whether all of it was sent as ASCII. */
  private takeAscii(): boolean {
    const ascii = this.pendingAscii;
    this.pending = '';
    this.pendingAscii = true;
    return ascii;
  }
}
