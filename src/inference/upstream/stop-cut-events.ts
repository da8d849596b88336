import type { CitedTextBlock } from '../canonical/chat.ts';
import { firstStop, StopCutter } from '../canonical/stop-cut.ts';
import { textsOfRun } from '../canonical/text-run.ts';
import type { ProviderChatResult, ProviderStreamEvent } from '../providers/provider-stream.ts';
import type { EventBatchSource } from './start-chat-stream.ts';

/**
 * A whole answer cut at the first of `stops` in its text (the sequence left out), as an upstream
 * that took them would have stopped: finish `stop`, no tool calls (Anthropic writes an answer's text
 * before its calls, so they came after the cut). Its usage stays the upstream's report.
 */
export function cutAnswer(result: ProviderChatResult, stops: readonly string[]): ProviderChatResult {
  const found = firstStop(result.text, stops);
  if (found === null) return result;
  const { textBlocks, contextWindowExceeded: _length, ...rest } = result;
  return Object.assign(rest, {
    text: result.text.slice(0, found.at),
    toolCalls: [],
    finishReason: 'stop' as const,
    stopSequence: found.stop,
    ...(textBlocks ? { textBlocks: cutBlocks(textBlocks, found.at) } : {}),
  });
}

/** The blocks whose texts, joined, are the first `length` characters of theirs. */
function cutBlocks(blocks: readonly CitedTextBlock[], length: number): CitedTextBlock[] {
  const out: CitedTextBlock[] = [];
  let left = length;
  for (const b of blocks) {
    if (left === 0) break;
    out.push(b.text.length <= left ? b : { ...b, text: b.text.slice(0, left) });
    left -= Math.min(left, b.text.length);
  }
  return out;
}

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
