import { createParser, type EventSourceMessage } from 'eventsource-parser';

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
  const decoder = new TextDecoder();
  const take = () => {
    const events = queue;
    queue = [];
    return events;
  };
  return {
    feed(chunk) {
      parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
      return take();
    },
    end() {
      // An empty last event dispatches nothing.
      parser.feed(`${decoder.decode()}\n\n`);
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
