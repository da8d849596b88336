import type { CancelSignal } from '../../shared/cancel-signal.ts';
import type { ProviderStreamEvent, ProviderStreamParser } from '../providers/provider-stream.ts';
import { createSseSplitter } from './read-sse-events.ts';
import { networkFailure, type BodyReader } from './upstream-transport.ts';

/**
 * The provider events of a streamed answer, one batch per read of its body: the events that read
 * completed, parsed with no await between them. A failure after some events of a read arrives
 * after them (the client gets what came before it). Network failures are mapped as the
 * transport's are.
 */
export async function* readProviderEvents(
  reader: BodyReader,
  parser: ProviderStreamParser,
  signal: CancelSignal | undefined,
): AsyncGenerator<ProviderStreamEvent[]> {
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
