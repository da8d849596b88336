import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { StringDecoder } from 'node:string_decoder';

export interface SseSplitter {
  /** The events completed by this piece of the body (partial lines and UTF-8 sequences wait). */
  feed(chunk: Uint8Array | string): EventSourceMessage[];
  /** The body ended: a last event without its closing blank line still counts. */
  end(): EventSourceMessage[];
}

/** Server-sent events of a response body, however its bytes are split, one read at a time. */
export function createSseSplitter(): SseSplitter {
  let queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => queue.push(e) });
  // StringDecoder rather than TextDecoder: the same UTF-8 decoding (a character split between
  // reads waits for its other bytes, invalid bytes become U+FFFD), about ten times faster per
  // read on Node 20 (1 µs against 11 for a 22 KB read). Unlike TextDecoder it keeps a leading
  // byte order mark, which the stream's first text drops (the SSE spec ignores one BOM).
  const decoder = new StringDecoder('utf8');
  let first = true;
  const text = (s: string): string => {
    if (!first || s === '') return s;
    first = false;
    return s.charCodeAt(0) === 0xfeff ? s.slice(1) : s;
  };
  const take = () => {
    const events = queue;
    queue = [];
    return events;
  };
  return {
    feed(chunk) {
      parser.feed(text(typeof chunk === 'string' ? chunk : decoder.write(chunk)));
      return take();
    },
    end() {
      // An empty last event dispatches nothing.
      parser.feed(`${text(decoder.end())}\n\n`);
      return take();
    },
  };
}

/** The events of a body as an async iterable (see createSseSplitter). */
export async function* readSseEvents(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<EventSourceMessage> {
  const splitter = createSseSplitter();
  for await (const chunk of body) yield* splitter.feed(chunk);
  yield* splitter.end();
}
