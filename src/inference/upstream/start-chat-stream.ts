import type { FinishReason, StreamPart } from '../canonical/chat.ts';
import { textsOfRun, type TextRun, type TextRunPart } from '../canonical/text-run.ts';
import type { Usage } from '../canonical/usage.ts';
import type { ContentPart, ProviderStreamEvent } from '../providers/provider-stream.ts';
import { estimateOutputTokens, withReasoningTokens } from '../tokens/count-tokens.ts';

/**
 * A streamed answer. Iterate it once: content parts, then one `finish`, then one `usage` part.
 * Errors while iterating are UpstreamErrors (already redacted) or the caller's abort reason.
 */
export interface ChatStream extends AsyncIterable<StreamPart> {
  /**
   * The same parts grouped as they arrived (the content of one upstream read together), for a
   * consumer that writes them in one go. Iterate either this or the stream itself, once. With
   * `textRuns`, text deltas that came as a run of upstream events stay one `text-run` part
   * (text-run.ts), for an encoder that passes them on; else they are text deltas.
   */
  batches(): AsyncIterable<readonly StreamPart[]>;
  batches(options: { readonly textRuns: true }): AsyncIterable<readonly (StreamPart | TextRunPart)[]>;
  /**
   * The usage so far: what the upstream reported, and tokenizer estimates for what it did not
   * (a stream cut short or abandoned by the client still bills what was produced).
   */
  usage(): { readonly usage: Usage; readonly estimated: boolean };
  /**
   * Closes the upstream request of a stream that will not be iterated (or no longer is). To stop a
   * read that is waiting on the upstream, abort the signal given to chatStream instead.
   */
  cancel(): Promise<void>;
}

export interface StartChatStreamOptions {
  /** Estimated input tokens of the request, used only when the upstream reports none. */
  readonly estimateInput: () => number;
  /** Converts what the provider stream throws into what callers see. */
  readonly mapError: (error: unknown) => unknown;
}

/**
 * Wraps a provider stream and waits for its first content part before resolving, so failures that
 * come before any output (an error status, an `overloaded` event first thing) reject here, while
 * the caller can still answer with an error status or fall back to the next deployment.
 */
export function startChatStream(source: AsyncIterable<ProviderStreamEvent>, options: StartChatStreamOptions): Promise<ChatStream> {
  async function* oneByOne(): AsyncGenerator<readonly ProviderStreamEvent[]> {
    for await (const e of source) yield [e];
  }
  return startBatchedChatStream(oneByOne(), options);
}

/** startChatStream over batches of provider events (see readProviderEvents). */
export async function startBatchedChatStream(
  source: AsyncIterable<readonly ProviderStreamEvent[]>,
  options: StartChatStreamOptions,
): Promise<ChatStream> {
  const it = source[Symbol.asyncIterator]();
  const reported: { -readonly [K in keyof Usage]?: Usage[K] } = {};
  let finish: FinishReason | null = null;
  let stopSequence: string | undefined;
  let text = '';
  // Runs after `text`, decoded only when the text is needed: to count tokens the upstream did not report.
  let runs: TextRun[] = [];
  const textSoFar = () => {
    if (runs.length > 0) {
      for (const run of runs) for (const t of textsOfRun(run)) text += t;
      runs = [];
    }
    return text;
  };
  let reasoning = '';
  const toolCalls: { name: string; arguments: string }[] = [];
  let closed = false;

  const close = async () => {
    if (closed) return;
    closed = true;
    await it.return?.(undefined);
  };

  /** The next batch with content in it; null at the end. */
  const next = async (): Promise<(ContentPart | TextRunPart)[] | null> => {
    for (;;) {
      let r: IteratorResult<readonly ProviderStreamEvent[]>;
      try {
        r = await it.next();
      } catch (e) {
        closed = true;
        throw options.mapError(e);
      }
      if (r.done) {
        closed = true;
        return null;
      }
      const parts: (ContentPart | TextRunPart)[] = [];
      for (const e of r.value) {
        switch (e.type) {
          case 'text-run':
            runs.push(e.run);
            break;
          case 'reported-usage':
            Object.assign(reported, e.usage);
            continue;
          case 'finish':
            finish = e.reason;
            stopSequence = e.stopSequence;
            continue;
          case 'text-delta':
            text = textSoFar() + e.text;
            break;
          case 'reasoning-delta':
            reasoning += e.text;
            break;
          case 'tool-call-start':
            toolCalls[e.index] = { name: e.name, arguments: '' };
            break;
          case 'tool-call-delta': {
            const call = toolCalls[e.index];
            if (call) call.arguments += e.argumentsDelta;
            break;
          }
        }
        parts.push(e);
      }
      if (parts.length > 0) return parts;
    }
  };

  const usage = () => {
    const estimated = reported.inputTokens === undefined || reported.outputTokens === undefined;
    return {
      usage: withReasoningTokens(
        {
          inputTokens: reported.inputTokens ?? options.estimateInput(),
          cachedInputTokens: reported.cachedInputTokens ?? 0,
          outputTokens: reported.outputTokens ?? estimateOutputTokens({ text: textSoFar(), reasoning, toolCalls: toolCalls.filter(Boolean) }),
          ...(reported.cacheWriteInputTokens !== undefined ? { cacheWriteInputTokens: reported.cacheWriteInputTokens } : {}),
          ...(reported.reasoningTokens !== undefined ? { reasoningTokens: reported.reasoningTokens } : {}),
        },
        reasoning,
      ),
      estimated,
    };
  };

  let first: (ContentPart | TextRunPart)[] | null = await next();
  let firstTaken = false;
  let iterated = false;

  /**
   * An iterator object, not an async generator. On Node 20 an async generator that awaits another
   * async generator (here the provider events), consumed with for-await, left each finished
   * stream's objects (its decoded body, events and parts: 25-38 KB per 100-chunk stream) alive
   * through young-generation collections until the next full one: every scavenge copied them, and
   * garbage collection was about half of the stream path's CPU (bench/stream-path.ts: 120 -> 65 µs
   * per stream with this). One next() at a time, as for-await calls it.
   */
  function batches(textRuns: boolean): AsyncIterableIterator<readonly (StreamPart | TextRunPart)[]> {
    let ended = false;
    const done = (): IteratorResult<readonly (StreamPart | TextRunPart)[]> => ({ done: true, value: undefined });
    return selfIterable<readonly (StreamPart | TextRunPart)[]>({
      async next() {
        if (ended) return done();
        let b: (ContentPart | TextRunPart)[] | null;
        try {
          if (firstTaken) b = await next();
          else {
            firstTaken = true;
            b = first;
            first = null;
          }
        } catch (e) {
          ended = true;
          await close();
          throw e;
        }
        if (b !== null) return { done: false, value: textRuns ? b : withoutRuns(b) };
        ended = true;
        await close();
        const u = usage();
        return {
          done: false,
          value: [
            { type: 'finish', reason: finish ?? 'stop', ...(stopSequence !== undefined ? { stopSequence } : {}) },
            { type: 'usage', usage: u.usage, estimated: u.estimated },
          ],
        };
      },
      async return() {
        ended = true;
        await close();
        return done();
      },
    });
  }
  const once = (options?: { readonly textRuns: true }) => {
    if (iterated) throw new Error('a chat stream can be iterated only once');
    iterated = true;
    return batches(options?.textRuns === true);
  };

  const stream = { batches: once, usage, cancel: close } as Omit<ChatStream, typeof Symbol.asyncIterator> as ChatStream;
  // The parts of each batch one by one, an iterator object for the same reason as batches().
  stream[Symbol.asyncIterator] = () => {
    const grouped = once() as AsyncIterableIterator<readonly StreamPart[]>;
    let batch: readonly StreamPart[] = [];
    let i = 0;
    return selfIterable({
      async next(): Promise<IteratorResult<StreamPart>> {
        while (i === batch.length) {
          const r = await grouped.next();
          if (r.done) return r;
          batch = r.value;
          i = 0;
        }
        return { done: false, value: batch[i++]! };
      },
      async return(): Promise<IteratorResult<StreamPart>> {
        await grouped.return?.();
        return { done: true, value: undefined };
      },
    });
  };
  return stream;
}

/** A batch's parts with each text run given as the text deltas it holds. */
function withoutRuns(parts: (ContentPart | TextRunPart)[]): ContentPart[] {
  if (!parts.some(isRun)) return parts as ContentPart[];
  const out: ContentPart[] = [];
  for (const p of parts) {
    if (p.type !== 'text-run') out.push(p);
    else for (const text of textsOfRun(p.run)) out.push({ type: 'text-delta', text });
  }
  return out;
}

const isRun = (p: ContentPart | TextRunPart): boolean => p.type === 'text-run';

function returnThis<T>(this: T): T {
  return this;
}

/**
 * Makes an iterator its own iterable. Assigned after the object is made: an object literal with a
 * computed key is built by a runtime call, some tenths of a microsecond per stream.
 */
function selfIterable<T>(iterator: AsyncIterator<T>): AsyncIterableIterator<T> {
  (iterator as AsyncIterableIterator<T>)[Symbol.asyncIterator] = returnThis;
  return iterator as AsyncIterableIterator<T>;
}
