import { finishDetail, type FinishDetail, type FinishReason, type StreamPart } from '../canonical/chat.ts';
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
 * Where a chat stream's provider events come from: one batch at a time (the events of one upstream
 * read, see ProviderEventBatches), never an empty one; null once they ended.
 */
export interface EventBatchSource {
  next(): Promise<readonly ProviderStreamEvent[] | null>;
  /** Stops reading before the end (closes the upstream request); nothing after it is read. */
  close(): void | Promise<void>;
}

/**
 * Wraps a provider stream and waits for its first content part before resolving, so failures that
 * come before any output (an error status, an `overloaded` event first thing) reject here, while
 * the caller can still answer with an error status or fall back to the next deployment.
 */
export function startChatStream(source: AsyncIterable<ProviderStreamEvent>, options: StartChatStreamOptions): Promise<ChatStream> {
  const it = source[Symbol.asyncIterator]();
  return startBatchedChatStream(
    {
      next: async () => {
        const r = await it.next();
        return r.done ? null : [r.value];
      },
      close: async () => {
        await it.return?.(undefined);
      },
    },
    options,
  );
}

/** startChatStream over batches of provider events (see ProviderEventBatches). */
export async function startBatchedChatStream(source: EventBatchSource, options: StartChatStreamOptions): Promise<ChatStream> {
  const stream = new BatchedChatStream(source, options);
  await stream.start();
  return stream;
}

type Batch = (ContentPart | TextRunPart)[];

/**
 * Classes and iterator objects, no async generator: read through one another's awaits, async
 * generators here kept every finished stream's objects (its decoded body, events and parts) alive
 * through young-generation collections until the next full one, so that every scavenge copied
 * them (docs/bench-gateway.md, "Session 10").
 */
class BatchedChatStream implements ChatStream {
  private readonly reported: { -readonly [K in keyof Usage]?: Usage[K] } = {};
  private finish: FinishReason | null = null;
  private detail: FinishDetail = {};
  private text = '';
  // Runs after `text`, decoded only when the text is needed: to count tokens the upstream did not report.
  private runs: TextRun[] = [];
  private reasoning = '';
  private readonly toolCalls: { name: string; arguments: string }[] = [];
  private closed = false;
  private first: Batch | null = null;
  private firstTaken = false;
  private iterated = false;

  constructor(
    private readonly source: EventBatchSource,
    private readonly options: StartChatStreamOptions,
  ) {}

  async start(): Promise<void> {
    this.first = await this.pull();
  }

  /** The next batch with content in it; null at the end. */
  async pull(): Promise<Batch | null> {
    for (;;) {
      let batch: readonly ProviderStreamEvent[] | null;
      try {
        batch = await this.source.next();
      } catch (e) {
        this.closed = true;
        throw this.options.mapError(e);
      }
      if (batch === null) {
        this.closed = true;
        return null;
      }
      const parts: Batch = [];
      for (const e of batch) {
        switch (e.type) {
          case 'text-run':
            this.runs.push(e.run);
            break;
          case 'reported-usage':
            Object.assign(this.reported, e.usage);
            continue;
          case 'finish':
            this.finish = e.reason;
            this.detail = finishDetail(e);
            continue;
          // A refusal is output like text: estimated the same when the upstream does not count it.
          case 'text-delta':
          case 'refusal-delta':
            this.text = this.textSoFar() + e.text;
            break;
          case 'reasoning-delta':
            this.reasoning += e.text;
            break;
          case 'tool-call-start':
            this.toolCalls[e.index] = { name: e.name, arguments: '' };
            break;
          case 'tool-call-delta': {
            const call = this.toolCalls[e.index];
            if (call) call.arguments += e.argumentsDelta;
            break;
          }
        }
        parts.push(e);
      }
      if (parts.length > 0) return parts;
    }
  }

  /** The first batch (read by start()), then the following ones. */
  async nextBatch(): Promise<Batch | null> {
    if (this.firstTaken) return this.pull();
    this.firstTaken = true;
    const b = this.first;
    this.first = null;
    return b;
  }

  /** The finish and usage parts that end the stream. */
  last(): StreamPart[] {
    const u = this.usage();
    return [
      { type: 'finish', reason: this.finish ?? 'stop', ...this.detail },
      { type: 'usage', usage: u.usage, estimated: u.estimated },
    ];
  }

  private textSoFar(): string {
    if (this.runs.length > 0) {
      for (const run of this.runs) for (const t of textsOfRun(run)) this.text += t;
      this.runs = [];
    }
    return this.text;
  }

  usage(): { readonly usage: Usage; readonly estimated: boolean } {
    const { reported } = this;
    const estimated = reported.inputTokens === undefined || reported.outputTokens === undefined;
    return {
      usage: withReasoningTokens(
        {
          inputTokens: reported.inputTokens ?? this.options.estimateInput(),
          cachedInputTokens: reported.cachedInputTokens ?? 0,
          outputTokens: reported.outputTokens ?? estimateOutputTokens({ text: this.textSoFar(), reasoning: this.reasoning, toolCalls: this.toolCalls.filter(Boolean) }),
          ...(reported.cacheWriteInputTokens !== undefined ? { cacheWriteInputTokens: reported.cacheWriteInputTokens } : {}),
          ...(reported.cacheWrite1hInputTokens !== undefined ? { cacheWrite1hInputTokens: reported.cacheWrite1hInputTokens } : {}),
          ...(reported.reasoningTokens !== undefined ? { reasoningTokens: reported.reasoningTokens } : {}),
        },
        this.reasoning,
      ),
      estimated,
    };
  }

  async cancel(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.source.close();
  }

  batches(): AsyncIterable<readonly StreamPart[]>;
  batches(options: { readonly textRuns: true }): AsyncIterable<readonly (StreamPart | TextRunPart)[]>;
  batches(options?: { readonly textRuns: true }): AsyncIterable<readonly (StreamPart | TextRunPart)[]> {
    if (this.iterated) throw new Error('a chat stream can be iterated only once');
    this.iterated = true;
    return new BatchIterator(this, options?.textRuns === true);
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamPart> {
    return new PartIterator(this.batches()[Symbol.asyncIterator]());
  }
}

const DONE: IteratorResult<never> = Object.freeze({ done: true, value: undefined });

/** The stream's batches, then one of its finish and usage; one next() at a time, as for-await calls it. */
class BatchIterator implements AsyncIterableIterator<readonly (StreamPart | TextRunPart)[]> {
  private ended = false;

  constructor(
    private readonly stream: BatchedChatStream,
    private readonly textRuns: boolean,
  ) {}

  async next(): Promise<IteratorResult<readonly (StreamPart | TextRunPart)[]>> {
    if (this.ended) return DONE;
    let b: Batch | null;
    try {
      b = await this.stream.nextBatch();
    } catch (e) {
      this.ended = true;
      await this.stream.cancel();
      throw e;
    }
    if (b !== null) return { done: false, value: this.textRuns ? b : withoutRuns(b) };
    this.ended = true;
    await this.stream.cancel();
    return { done: false, value: this.stream.last() };
  }

  async return(): Promise<IteratorResult<readonly (StreamPart | TextRunPart)[]>> {
    this.ended = true;
    await this.stream.cancel();
    return DONE;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

/** The parts of each batch one by one. */
class PartIterator implements AsyncIterableIterator<StreamPart> {
  private batch: readonly StreamPart[] = [];
  private i = 0;

  constructor(private readonly batches: AsyncIterator<readonly StreamPart[]>) {}

  async next(): Promise<IteratorResult<StreamPart>> {
    while (this.i === this.batch.length) {
      const r = await this.batches.next();
      if (r.done) return r;
      this.batch = r.value;
      this.i = 0;
    }
    return { done: false, value: this.batch[this.i++]! };
  }

  async return(): Promise<IteratorResult<StreamPart>> {
    await this.batches.return?.();
    return DONE;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
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
