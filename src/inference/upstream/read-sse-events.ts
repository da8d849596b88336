import { createParser, type EventSourceMessage } from 'eventsource-parser';

/**
 * Server-sent events of a response body, however the bytes are split: the parser buffers partial
 * lines and the decoder partial UTF-8 sequences.
 */
export async function* readSseEvents(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<EventSourceMessage> {
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => queue.push(e) });
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    while (queue.length > 0) yield queue.shift()!;
  }
  // A last event without its closing blank line still counts; an empty one dispatches nothing.
  parser.feed(`${decoder.decode()}\n\n`);
  while (queue.length > 0) yield queue.shift()!;
}
