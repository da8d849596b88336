import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { StringDecoder } from 'node:string_decoder';
import { matchTextRun, type TextEventTemplate, type TextRun } from '../canonical/text-run.ts';
import { ProviderFailure } from '../providers/provider-failure.ts';

export interface SseSplitter {
  /** The events completed by this piece of the body (partial lines and UTF-8 sequences wait). */
  feed(chunk: Uint8Array | string): readonly EventSourceMessage[];
  /** The body ended: a last event without its closing blank line still counts. */
  end(): readonly EventSourceMessage[];
}

const NONE: readonly EventSourceMessage[] = Object.freeze([]);

/** The most text of an unfinished event held back while runs are read (see SseReader.visit). */
export const MAX_PENDING = 64 * 1024;

/**
 * What a splitter hands a reader, one at a time in the body's order: an event (return true to
 * read no further), or a run of events of the reader's text template, kept as their text.
 */
export interface SseVisitor {
  /** Whether runs are read at all: else events are split and handed over as they come. */
  readonly runs: boolean;
  event(event: EventSourceMessage): boolean;
  run(run: TextRun): void;
  /** The events a run may be made of, once known (null: none yet). */
  template(): TextEventTemplate | null;
}

/**
 * Server-sent events of a response body, however its bytes are split, one read at a time. With
 * a visitor whose template is known, events of it that follow each other are handed over as one
 * text run instead of being split and parsed (text-run.ts); the others, one by one, as events.
 */
export class SseReader {
  private queue: EventSourceMessage[] = [];
  private readonly parser = createParser({ onEvent: (e) => this.queue.push(e), onComment: () => (this.sawComment = true) });
  /**
   * Bytes given the event parser since it last completed an event or a comment (about: the tail
   * after the last line end counts from its read), checked against the cap: the parser would
   * hold an event that never ends, or a line without a newline, for as long as it grows. What it
   * counts it counts in bytes, never short of them (see parse); a few may count more.
   */
  private unfinished = 0;
  private sawComment = false;
  // StringDecoder rather than TextDecoder: the same UTF-8 decoding (a character split between
  // reads waits for its other bytes, invalid bytes become U+FFFD), about ten times faster per
  // read on Node 20 (1 µs against 11 for a 22 KB read). Unlike TextDecoder it keeps a leading
  // byte order mark, which the stream's first text drops (the SSE spec ignores one BOM).
  private readonly decoder = new StringDecoder('utf8');
  private first = true;
  /** Text of an event not complete yet, kept here (not in the event parser) while runs are read. */
  private pending = '';
  /**
   * Runs are read from a body whose events end with `\n\n`; a body with carriage returns goes
   * through the event parser as it comes, which reads every line ending SSE allows.
   */
  private runs = true;

  /** `maxEventBytes`: the longest event (or line), in bytes of the body, read before the stream fails (eventTooLarge). */
  constructor(private readonly maxEventBytes = Infinity) {}

  /** The events completed by this piece of the body (partial lines and UTF-8 sequences wait). */
  feed(chunk: Uint8Array | string): readonly EventSourceMessage[] {
    this.parse(this.text(chunk), byteLength(chunk));
    return this.take();
  }

  /** The body ended: a last event without its closing blank line still counts. */
  end(): readonly EventSourceMessage[] {
    // An empty last event dispatches nothing.
    this.parser.feed(`${this.pending}${this.text(this.decoder.end())}\n\n`);
    this.pending = '';
    return this.take();
  }

  /** Hands what this piece of the body completed to `visitor`; true once it asked to stop. */
  visit(chunk: Uint8Array | string, visitor: SseVisitor): boolean {
    const decoded = this.text(chunk);
    if (!this.runs || !visitor.runs) return this.dispatch(decoded, visitor, byteLength(chunk));
    const text = this.pending === '' ? decoded : this.pending + decoded;
    this.pending = '';
    if (text.includes('\r')) {
      this.runs = false;
      // Once a stream: the text held back was never counted.
      return this.dispatch(text, visitor, Buffer.byteLength(text));
    }
    let at = 0;
    for (;;) {
      const template = visitor.template();
      if (template !== null) {
        const found = { literals: [] as number[], ascii: true };
        const end = matchTextRun(text, at, template, found);
        if (end > at) {
          visitor.run({ text, literals: found.literals, ascii: found.ascii });
          at = end;
        }
      }
      const blank = text.indexOf('\n\n', at);
      if (blank === -1) break;
      // One whole event at a time: the event parser holds nothing between them (and has nothing
      // unfinished after one, even an event without data, which it completes without a word).
      if (this.dispatchWhole(text.slice(at, blank + 2), visitor)) return true;
      at = blank + 2;
    }
    const rest = at === 0 ? text : text.slice(at);
    // Three bytes at most a UTF-16 unit: held here, the rest never passes the cap in bytes.
    if (rest.length <= MAX_PENDING && rest.length * 3 <= this.maxEventBytes) {
      this.pending = rest;
      return false;
    }
    // An event this long without its end (a large tool call in one event, say) is read event by
    // event from here: kept here it would be scanned again at every read. Counted once, as it
    // goes to the event parser.
    this.runs = false;
    return this.dispatch(rest, visitor, Buffer.byteLength(rest));
  }

  /** The body ended (see visit). */
  visitEnd(visitor: SseVisitor): void {
    for (const e of this.end()) if (visitor.event(e)) return;
  }

  /** `bytes`: how many bytes of the body `text` was decoded from. */
  private dispatch(text: string, visitor: SseVisitor, bytes: number): boolean {
    this.parse(text, bytes);
    return this.hand(visitor);
  }

  /** `text` is whole events, ending with a blank line. */
  private dispatchWhole(text: string, visitor: SseVisitor): boolean {
    this.parser.feed(text);
    this.sawComment = false;
    this.unfinished = 0;
    return this.hand(visitor);
  }

  private hand(visitor: SseVisitor): boolean {
    for (const e of this.take()) if (visitor.event(e)) return true;
    return false;
  }

  /**
   * Feeds the event parser, counting `bytes` (the read's own byte length: no pass over the text)
   * until an event or comment completes; then the tail after the last line end, in UTF-8 bytes
   * counted on the one walk back that finds it, plus the bytes of a character split at the read's
   * end, which the decoder holds back (at most three, counted as three). Text the decoder replaced
   * with U+FFFD counts three bytes for each bad byte: an overcount, never an undercount.
   */
  private parse(text: string, bytes: number): void {
    this.parser.feed(text);
    if (this.maxEventBytes === Infinity) return;
    if (this.queue.length > 0 || this.sawComment) {
      this.sawComment = false;
      this.unfinished = tailBytes(text) + SPLIT_CHARACTER_BYTES;
    } else this.unfinished += bytes;
    if (this.unfinished > this.maxEventBytes) throw eventTooLarge();
  }

  private text(chunk: Uint8Array | string): string {
    const s = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    if (!this.first || s === '') return s;
    this.first = false;
    return s.charCodeAt(0) === 0xfeff ? s.slice(1) : s;
  }

  private take(): readonly EventSourceMessage[] {
    if (this.queue.length === 0) return NONE;
    const events = this.queue;
    this.queue = [];
    return events;
  }
}

/** The most bytes of one character the decoder holds back at the end of a read. */
const SPLIT_CHARACTER_BYTES = 3;

/** The bytes of a piece of the body (a string, as tests feed, is counted in UTF-8). */
function byteLength(chunk: Uint8Array | string): number {
  return typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
}

/**
 * The UTF-8 bytes of `text` after its last line end (LF or CR), all of it when none: one walk back
 * from the end, where a stream's read usually has one; two lastIndexOf calls would walk a whole
 * read without a CR (most streams) on every read. A surrogate pair is two units of two bytes.
 */
export function tailBytes(text: string): number {
  let n = 0;
  for (let i = text.length - 1; i >= 0; i--) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) return n;
    n += c < 0x80 ? 1 : c < 0x800 || (c >= 0xd800 && c <= 0xdfff) ? 2 : 3;
  }
  return n;
}

/** A server-sent event past the cap: a failure of the upstream, as a malformed stream is. */
export function eventTooLarge(): ProviderFailure {
  return new ProviderFailure(502, 'an upstream event is too large');
}

/** Server-sent events of a response body, however its bytes are split, one read at a time. */
export function createSseSplitter(): SseSplitter {
  return new SseReader();
}

/** The events of a body as an async iterable (see createSseSplitter). */
export async function* readSseEvents(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<EventSourceMessage> {
  const splitter = createSseSplitter();
  for await (const chunk of body) yield* splitter.feed(chunk);
  yield* splitter.end();
}
