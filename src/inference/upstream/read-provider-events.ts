import type { Readable } from 'node:stream';
import type { ProviderStreamEvent, ProviderStreamParser } from '../providers/provider-stream.ts';
import { createSseSplitter } from './read-sse-events.ts';
import { networkFailure } from './upstream-transport.ts';

/** How long a complete answer's body may take to end before its connection is given up. */
const DRAIN_MS = 1000;

interface BodyReader {
  /** What arrived since the last read, in one buffer; null at the end of the body. */
  read(): Promise<Buffer | null>;
  /** Stops reading a complete answer: the rest drains, so the connection serves the next request. */
  release(): void;
  /** Stops reading early: closes the upstream request. */
  destroy(): void;
}

/**
 * Reads a response body with read(), not its async iterator: returning that iterator before the
 * body's end destroys the body with an AbortError (a stack trace per stream) and the connection
 * with it, while a complete answer's last bytes (after `[DONE]`, `message_stop`) can simply drain.
 */
function readBody(body: Readable): BodyReader {
  let failure: Error | null = null;
  let ended = false;
  let wake: (() => void) | null = null;
  const notify = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  const onEnd = () => {
    ended = true;
    notify();
  };
  const onError = (e: Error) => {
    failure ??= e;
    notify();
  };
  const onClose = () => {
    if (!ended) onError(new Error('the upstream response closed before its end'));
  };
  body.on('readable', notify);
  body.on('end', onEnd);
  body.on('error', onError);
  body.on('close', onClose);
  return {
    async read() {
      for (;;) {
        if (failure) throw failure;
        const chunk = body.read() as Buffer | null;
        if (chunk !== null) return chunk;
        if (ended) return null;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
    release() {
      body.off('readable', notify);
      if (ended) return;
      // The error listener stays: a failure while draining has nobody to tell. An upstream that
      // keeps the body open after its answer is cut off soon (the connection is lost then).
      const cutOff = setTimeout(() => body.destroy(), DRAIN_MS).unref();
      body.once('end', () => clearTimeout(cutOff));
      body.resume();
    },
    destroy() {
      if (!ended && !body.destroyed) body.destroy();
    },
  };
}

/**
 * The provider events of a streamed answer, one batch per read of its body: the events that read
 * completed, parsed with no await between them. A failure after some events of a read arrives
 * after them (the client gets what came before it). Network failures are mapped as the
 * transport's are.
 */
export async function* readProviderEvents(
  body: Readable,
  parser: ProviderStreamParser,
  signal: AbortSignal | undefined,
): AsyncGenerator<ProviderStreamEvent[]> {
  const reader = readBody(body);
  const sse = createSseSplitter();
  let complete = false;
  try {
    for (;;) {
      let chunk: Buffer | null;
      try {
        chunk = await reader.read();
      } catch (e) {
        throw networkFailure(e, signal);
      }
      const out: ProviderStreamEvent[] = [];
      try {
        for (const event of chunk === null ? sse.end() : sse.feed(chunk)) {
          if (parser.push(event, out)) {
            complete = true;
            break;
          }
        }
        if (complete || chunk === null) parser.end(out);
      } catch (e) {
        if (out.length > 0) yield out;
        throw e;
      }
      if (out.length > 0) yield out;
      if (complete || chunk === null) {
        complete = true;
        return;
      }
    }
  } finally {
    if (complete) reader.release();
    else reader.destroy();
  }
}
