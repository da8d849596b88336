import type { EventSourceMessage } from 'eventsource-parser';
import type { TextEventTemplate, TextRun } from '../canonical/text-run.ts';
import type { CancelSignal } from '../../shared/cancel-signal.ts';
import { ProviderFailure } from '../providers/provider-failure.ts';
import type { ProviderStreamEvent, ProviderStreamParser } from '../providers/provider-stream.ts';
import { SseReader, type SseVisitor } from './read-sse-events.ts';
import type { EventBatchSource } from './start-chat-stream.ts';
import { networkFailure, type BodyReader } from './upstream-transport.ts';

export interface ReadProviderEventsOptions {
  /**
   * Give the parser's text-delta events that follow each other as one `text-run` event, kept as
   * their text, when the parser knows their template (see text-run.ts); else each is parsed.
   */
  readonly textRuns?: boolean;
  /**
   * How long after its last event a stream whose reads bring bytes that hold no event (pings,
   * SSE comments) fails as timed out: keep-alives alone would otherwise hold a stalled stream open
   * for as long as the upstream sends them, past the transport's idle timeout, which any byte resets.
   */
  readonly idleMs?: number;
  /** The longest server-sent event (or line) read before the stream fails; none: unbounded. */
  readonly maxEventBytes?: number;
}

const idleTimeout = (): ProviderFailure => new ProviderFailure(504, 'the upstream timed out', { network: 'timeout' });

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
 * at the next call, after them (the client gets what came before it). Network failures are
 * mapped as the transport's are. The body is released once the answer is complete, and
 * destroyed (the upstream request closed) when reading fails or stops before that.
 *
 * A class rather than an async generator: read through the chat stream's own awaits, an async
 * generator here kept every finished stream's decoded body alive through young-generation
 * collections until the next full one (docs/bench-gateway.md, "Session 10").
 */
export class ProviderEventBatches implements EventBatchSource {
  private readonly sse: SseReader;
  private readonly visitor: ParsingVisitor;
  private reading = true;
  private failed = false;
  private failure: unknown = undefined;
  private readonly idleMs: number;
  // When a read last brought an event (the stream's start before any did).
  private lastEventAt = Date.now();
  // Set after a read that brought only keep-alives: how long the next read may wait before the
  // stream has been without events for idleMs (0: the next read waits on the transport alone).
  private quietLeftMs = 0;

  constructor(
    private readonly reader: BodyReader,
    private readonly parser: ProviderStreamParser,
    private readonly signal: CancelSignal | undefined,
    options: ReadProviderEventsOptions = {},
  ) {
    this.visitor = new ParsingVisitor(parser, options.textRuns === true);
    this.sse = new SseReader(options.maxEventBytes);
    this.idleMs = options.idleMs ?? Infinity;
  }

  async next(): Promise<ProviderStreamEvent[] | null> {
    if (this.failed) {
      const failure = this.failure;
      this.failed = false;
      this.failure = undefined;
      throw failure;
    }
    while (this.reading) {
      let chunk: Buffer | null;
      try {
        chunk = this.quietLeftMs > 0 ? await this.readWithin(this.quietLeftMs) : await this.reader.read();
      } catch (e) {
        this.close();
        throw networkFailure(e, this.signal);
      }
      // Closed while the read was waiting: what it brought is not wanted.
      if (!this.reading) break;
      const out: ProviderStreamEvent[] = [];
      this.visitor.out = out;
      try {
        let complete = true;
        if (chunk === null) this.sse.visitEnd(this.visitor);
        else complete = this.sse.visit(chunk, this.visitor);
        if (complete) {
          this.parser.end(out);
          this.reading = false;
          this.reader.release();
        }
      } catch (e) {
        this.close();
        if (out.length === 0) throw e;
        this.failed = true;
        this.failure = e;
      }
      this.quietLeftMs = 0;
      if (out.length > 0) {
        // One clock read per upstream read, not per event.
        if (this.idleMs !== Infinity) this.lastEventAt = Date.now();
        return out;
      }
      // Keep-alives reset the transport's idle timer; the silence is counted from the last event,
      // and the next read is held to what is left of it, so the stream ends at idleMs however
      // often they come.
      if (this.reading && this.idleMs !== Infinity) {
        const left = this.lastEventAt + this.idleMs - Date.now();
        if (left <= 0) {
          this.close();
          throw idleTimeout();
        }
        this.quietLeftMs = left;
      }
    }
    return null;
  }

  /** The next read, failed as timed out when nothing came within `ms`. */
  private readWithin(ms: number): Promise<Buffer | null> {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(idleTimeout()), ms);
    });
    return Promise.race([this.reader.read(), expired]).finally(() => clearTimeout(timer));
  }

  close(): void {
    if (!this.reading) return;
    this.reading = false;
    this.reader.destroy();
  }
}
