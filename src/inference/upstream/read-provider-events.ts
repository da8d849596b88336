import type { EventSourceMessage } from 'eventsource-parser';
import type { TextEventTemplate, TextRun } from '../canonical/text-run.ts';
import type { CancelSignal } from '../../shared/cancel-signal.ts';
import type { ProviderStreamEvent, ProviderStreamParser } from '../providers/provider-stream.ts';
import { SseReader, type SseVisitor } from './read-sse-events.ts';
import { networkFailure, type BodyReader } from './upstream-transport.ts';

export interface ReadProviderEventsOptions {
  /**
   * Give the parser's text-delta events that follow each other as one `text-run` event, kept as
   * their text, when the parser knows their template (see text-run.ts); else each is parsed.
   */
  readonly textRuns?: boolean;
}

/** The parser's side of the SSE reader, for one stream: what a read completes goes into `out`. */
class ParsingVisitor implements SseVisitor {
  out: ProviderStreamEvent[] = [];
  readonly runs: boolean;

  constructor(
    private readonly parser: ProviderStreamParser,
    runs: boolean,
  ) {
    this.runs = runs && parser.textTemplate !== undefined;
  }

  event(event: EventSourceMessage): boolean {
    return this.parser.push(event, this.out);
  }

  run(run: TextRun): void {
    this.out.push({ type: 'text-run', run });
  }

  template(): TextEventTemplate | null {
    return this.runs ? this.parser.textTemplate!() : null;
  }
}

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
  options: ReadProviderEventsOptions = {},
): AsyncGenerator<ProviderStreamEvent[]> {
  const sse = new SseReader();
  const visitor = new ParsingVisitor(parser, options.textRuns === true);
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
      visitor.out = out;
      try {
        if (chunk === null) sse.visitEnd(visitor);
        else complete = sse.visit(chunk, visitor);
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
