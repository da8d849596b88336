import { StopCutter } from '../canonical/stop-cut.ts';
import { textsOfRun } from '../canonical/text-run.ts';
import type { ProviderStreamEvent } from '../providers/provider-stream.ts';
import type { EventBatchSource } from './start-chat-stream.ts';

/**
 * A streamed answer's events cut at the first of `stops` in its text, however the text is split
 * into deltas: text is passed on once no sequence can start in it (StopCutter), and what is held
 * goes out before any other content, and before the finish of an answer that ended without one.
 * At a match the answer ends there with finish `stop`: usage the upstream reported in the same
 * read is kept, everything else after the match is dropped, and the upstream request is closed.
 * Wrapped around a stream's source only when the request has such sequences (decided once, when
 * the call is prepared); text runs are taken apart into their deltas here.
 */
export class StopCutEvents implements EventBatchSource {
  private readonly cutter: StopCutter;
  private ended = false;

  constructor(
    private readonly source: EventBatchSource,
    stops: readonly string[],
  ) {
    this.cutter = new StopCutter(stops);
  }

  async next(): Promise<readonly ProviderStreamEvent[] | null> {
    while (!this.ended) {
      const batch = await this.source.next();
      if (batch === null) {
        this.ended = true;
        const held = this.cutter.flush();
        return held === '' ? null : [{ type: 'text-delta', text: held }];
      }
      const out = this.cut(batch);
      // Stops reading: the rest of the answer is not wanted.
      if (this.ended) await this.source.close();
      if (out.length > 0) return out;
    }
    return null;
  }

  close(): void | Promise<void> {
    this.ended = true;
    return this.source.close();
  }

  /** The batch's events up to a match (`ended` set at one). */
  private cut(batch: readonly ProviderStreamEvent[]): ProviderStreamEvent[] {
    const out: ProviderStreamEvent[] = [];
    for (let i = 0; i < batch.length; i++) {
      const e = batch[i]!;
      if (e.type === 'text-delta' || e.type === 'text-run') {
        for (const delta of e.type === 'text-run' ? textsOfRun(e.run) : [e.text]) {
          const { text, stop } = this.cutter.push(delta);
          if (text !== '') out.push({ type: 'text-delta', text });
          if (stop === null) continue;
          for (const later of batch.slice(i + 1)) if (later.type === 'reported-usage') out.push(later);
          out.push({ type: 'finish', reason: 'stop', stopSequence: stop });
          this.ended = true;
          return out;
        }
      } else if (e.type === 'reported-usage') {
        out.push(e);
      } else {
        const held = this.cutter.flush();
        if (held !== '') out.push({ type: 'text-delta', text: held });
        out.push(e);
      }
    }
    return out;
  }
}
