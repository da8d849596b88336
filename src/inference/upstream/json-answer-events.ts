import type { CancelSignal } from '../../shared/cancel-signal.ts';
import type { ProviderStreamEvent } from '../providers/provider-stream.ts';
import type { EventBatchSource } from './start-chat-stream.ts';
import { answerTooLarge, networkFailure, parseJsonAnswer, type BodyReader } from './upstream-transport.ts';

/** The first bytes of a body that is an event stream after all, whatever its content type said. */
const EVENT_STREAM_START = /^\uFEFF?(?:data|event|id|retry)?:/;

/**
 * The events of a streamed call that the upstream answered with one JSON body (it ignored
 * `stream: true`): the body read whole, then `toEvents` (the adapter's parser of a whole answer,
 * as stream events) gives them in one batch, so the client still gets a stream in its protocol,
 * billed from the answer's usage. A body labelled JSON that is an event stream (a server that
 * streams with the wrong content type) is read as one by `asEventStream`, from the bytes already
 * read. Failures come out as ProviderEventBatches' do; a body past `maxBytes` is one (answerTooLarge).
 */
export class JsonAnswerEvents implements EventBatchSource {
  private done = false;
  private stream: EventBatchSource | null = null;

  constructor(
    private readonly reader: BodyReader,
    private readonly toEvents: (json: unknown) => ProviderStreamEvent[],
    private readonly asEventStream: (body: BodyReader) => EventBatchSource,
    private readonly signal: CancelSignal | undefined,
    private readonly maxBytes = Infinity,
  ) {}

  async next(): Promise<readonly ProviderStreamEvent[] | null> {
    if (this.stream) return this.stream.next();
    if (this.done) return null;
    this.done = true;
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for (let chunk = await this.reader.read(); chunk !== null; chunk = await this.reader.read()) {
        chunks.push(chunk);
        size += chunk.length;
        if (size > this.maxBytes) throw answerTooLarge();
      }
    } catch (e) {
      this.reader.destroy();
      throw networkFailure(e, this.signal);
    }
    const body = Buffer.concat(chunks);
    const text = body.toString('utf8');
    if (EVENT_STREAM_START.test(text.trimStart())) {
      this.stream = this.asEventStream(replay(body));
      return this.stream.next();
    }
    return this.toEvents(parseJsonAnswer(text));
  }

  close(): void | Promise<void> {
    if (this.stream) return this.stream.close();
    if (this.done) return;
    this.done = true;
    this.reader.destroy();
  }
}

/** A body already read, given again in one read. */
function replay(body: Buffer): BodyReader {
  let given = false;
  return {
    read: async () => {
      if (given) return null;
      given = true;
      return body;
    },
    release() {},
    destroy() {},
  };
}
