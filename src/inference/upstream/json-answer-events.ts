import type { CancelSignal } from '../../shared/cancel-signal.ts';
import type { ProviderStreamEvent } from '../providers/provider-stream.ts';
import type { EventBatchSource } from './start-chat-stream.ts';
import { networkFailure, parseJsonAnswer, type BodyReader } from './upstream-transport.ts';

/**
 * The events of a streamed call that the upstream answered with one JSON body (it ignored
 * `stream: true`): the body read whole, then `toEvents` (the adapter's parser of a whole answer,
 * as stream events) gives them in one batch, so the client still gets a stream in its protocol,
 * billed from the answer's usage. Failures come out as ProviderEventBatches' do.
 */
export class JsonAnswerEvents implements EventBatchSource {
  private done = false;

  constructor(
    private readonly reader: BodyReader,
    private readonly toEvents: (json: unknown) => ProviderStreamEvent[],
    private readonly signal: CancelSignal | undefined,
  ) {}

  async next(): Promise<ProviderStreamEvent[] | null> {
    if (this.done) return null;
    this.done = true;
    const chunks: Buffer[] = [];
    try {
      for (let chunk = await this.reader.read(); chunk !== null; chunk = await this.reader.read()) chunks.push(chunk);
    } catch (e) {
      this.reader.destroy();
      throw networkFailure(e, this.signal);
    }
    return this.toEvents(parseJsonAnswer(Buffer.concat(chunks).toString('utf8')));
  }

  close(): void {
    if (this.done) return;
    this.done = true;
    this.reader.destroy();
  }
}
