import { Agent, Pool, type Dispatcher } from 'undici';
import type { ProviderConfig } from '../../config/catalog.ts';
import { Cancellation, type CancelSignal } from '../../shared/cancel-signal.ts';
import { ProviderFailure, type ErrorBodyReader } from '../providers/provider-failure.ts';

export interface UpstreamTransportOptions {
  /**
   * Send everything through this dispatcher instead of the per-upstream pools (tests point it
   * anywhere: a MockAgent, an Agent with other limits). The caller owns and closes it.
   */
  readonly dispatcher?: Dispatcher;
  /** The largest whole 2xx answer read; past it the call fails (answerTooLarge). Default: unbounded. */
  readonly maxAnswerBytes?: number;
}

export interface UpstreamPost {
  /** Path below the provider's base URL, e.g. `/chat/completions`. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly signal?: CancelSignal | undefined;
}

/** A streamed answer's body, read a burst at a time. */
export interface BodyReader {
  /** What arrived since the last read, in one buffer; null at the end of the body. */
  read(): Promise<Buffer | null>;
  /**
   * Stops reading a complete answer: the rest drains, so the connection serves the next request.
   * A read() after it resolves null once the rest drained (fails when it was cut off).
   */
  release(): void;
  /** Stops reading early: closes the upstream request. */
  destroy(): void;
}

/** The body of a 2xx answer to a streamed call. */
export interface StreamBody extends BodyReader {
  /**
   * The answer is one JSON body (its content type says JSON), not an event stream: an upstream
   * that ignored `stream: true` and answered whole.
   */
  readonly json: boolean;
}

/**
 * undici's limits of one call. Non-streamed: the headers, and each gap in the body, within
 * `timeout_ms` (the whole answer is held to it by the call's own deadline: these reset on every
 * byte, so an upstream trickling its body would outlast them). Streamed: headers within the
 * first-byte timeout (the first content is watched by the caller), then at most the idle timeout
 * between chunks.
 */
function limits(provider: ProviderConfig, stream: boolean): { headersTimeout: number; bodyTimeout: number } {
  return stream
    ? { headersTimeout: Math.min(provider.firstByteTimeoutMs, provider.timeoutMs), bodyTimeout: provider.idleTimeoutMs }
    : { headersTimeout: provider.timeoutMs, bodyTimeout: provider.timeoutMs };
}

export interface UpstreamTransport {
  /**
   * POSTs JSON and reads the 2xx answer whole: resolves to its JSON (a ProviderFailure 502 when it
   * is not JSON). A non-2xx becomes a ProviderFailure with the message `readError` reads from its
   * body; network failures are ProviderFailures too (networkFailure), the caller's abort its reason.
   */
  postJson(provider: ProviderConfig, request: UpstreamPost, readError: ErrorBodyReader): Promise<unknown>;
  /**
   * POSTs JSON for a streamed answer: resolves with its body once a 2xx's headers arrived (which
   * may be a whole JSON answer, see StreamBody.json); failures as postJson's.
   */
  postStream(provider: ProviderConfig, request: UpstreamPost, readError: ErrorBodyReader): Promise<StreamBody>;
  /** GETs bytes (generated images an upstream answered with a URL). */
  download(url: string, timeoutMs: number, signal?: CancelSignal): Promise<Buffer>;
  close(): Promise<void>;
}

const MAX_ERROR_BODY = 64 * 1024;
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' } as const;
const STREAM_HEADERS = { 'content-type': 'application/json', accept: 'text/event-stream' } as const;
const MAX_DOWNLOAD = 64 * 1024 * 1024;
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/** An aborted caller gets its own abort reason back, never an upstream error. */
export function throwIfAborted(signal: CancelSignal | undefined): void {
  if (signal?.aborted) throw signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/**
 * Retry-after in milliseconds: delta-seconds or an HTTP date (OpenAI also sends `retry-after-ms`).
 */
export function parseRetryAfter(headers: Readonly<Record<string, string | string[] | undefined>>, now: number): number | undefined {
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v)?.trim();
  const ms = one(headers['retry-after-ms']);
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.ceil(Number(ms));
  const v = one(headers['retry-after']);
  if (!v) return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) return Math.ceil(Number(v) * 1000);
  const date = Date.parse(v);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** An upstream answer past the configured size: a failure of that upstream, so the next one is tried. */
export function answerTooLarge(): ProviderFailure {
  return new ProviderFailure(502, 'the upstream answer is too large');
}

/** Network-level failures as upstream failures: timeouts are 504, the rest (refused, reset, DNS) 502. */
export function networkFailure(error: unknown, signal: CancelSignal | undefined): unknown {
  if (signal?.aborted) return signal.reason ?? error;
  if (error instanceof ProviderFailure) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && TIMEOUT_CODES.has(code)) return new ProviderFailure(504, 'the upstream timed out', { network: 'timeout' });
  return new ProviderFailure(502, 'the upstream could not be reached', { network: 'connection' });
}

async function readCapped(body: Dispatcher.ResponseData['body'], cap: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const b = chunk as Buffer;
    chunks.push(b);
    size += b.length;
    if (size >= cap) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, cap);
}

/** A 2xx answer's text as JSON; a ProviderFailure 502 when it is not JSON. */
export function parseJsonAnswer(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ProviderFailure(502, 'the upstream answer is not JSON');
  }
}

const JSON_MEDIA_TYPE = /^\s*[\w.-]+\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

/**
 * Whether a raw header list (names and values alternating) says the body is JSON. Names are
 * compared by length first: a string per header name was not worth it on every stream.
 */
function saysJson(raw: readonly Buffer[]): boolean {
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 12 && name.toString('latin1').toLowerCase() === 'content-type') return JSON_MEDIA_TYPE.test(raw[i + 1]!.toString('latin1'));
  }
  return false;
}

/** The retry-after headers of an answer's raw header list (names and values alternating). */
function retryHeaders(raw: readonly Buffer[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toString('latin1').toLowerCase();
    if (name === 'retry-after' || name === 'retry-after-ms') out[name] ??= raw[i + 1]!.toString('latin1');
  }
  return out;
}

/** How long a complete streamed answer's body may take to end before its connection is given up. */
const DRAIN_MS = 1000;
/** Bytes a streamed answer may queue unread before undici stops reading the socket. */
const STREAM_HIGH_WATER = 64 * 1024;

/** An answer read whole (non-streamed, or any non-2xx), or a 2xx stream's body. */
type Answer =
  | { readonly status: number; readonly text: string; readonly headers: Record<string, string>; readonly reader?: undefined }
  | { readonly status: number; readonly reader: StreamBody };

/**
 * One upstream call through undici's dispatch handler, without the Readable, the async resource
 * and the parsed header object that `request()` builds per call: for a gateway answering from
 * memory those were a visible share of a request's CPU and garbage (docs/bench-gateway.md,
 * "Session 7"). A non-streamed answer, and every non-2xx one (read up to MAX_ERROR_BODY, then
 * given up), resolves once whole; a streamed 2xx resolves at its headers with itself as the
 * BodyReader, which queues what arrives and stops the socket beyond STREAM_HIGH_WATER. The
 * caller's signal aborts the call as request()'s would, rejecting (or failing the reader) with
 * its reason. One object is the promise's settler, undici's handler and the reader: a closure
 * per step cost a request some kilobytes of garbage (docs/bench-gateway.md, "Session 8").
 */
class UpstreamCall implements Dispatcher.DispatchHandler, StreamBody {
  private status = 0;
  private rawHeaders: Buffer[] = [];
  private chunks: Buffer[] = [];
  private size = 0;
  private abortCall: ((e?: Error) => void) | null = null;
  private resumeReading: (() => void) | null = null;
  // 'head' until the headers; 'whole' collects an answer read whole; 'stream' feeds the reader.
  private phase: 'head' | 'whole' | 'stream' | 'settled' = 'head';
  private ended = false;
  private failure: unknown = null;
  private paused = false;
  private draining = false;
  private wake: (() => void) | null = null;
  // Set while a released body drains: stops its cut-off timer once it ended.
  private cutOff: NodeJS.Timeout | null = null;
  private readonly onAbort: (() => void) | null;
  // A non-streamed call's limit for its whole answer (timeout_ms), from the dispatch.
  private deadline: NodeJS.Timeout | null = null;
  private failedWith: ProviderFailure | null = null;
  json = false;

  constructor(
    private readonly signal: CancelSignal | undefined,
    private readonly stream: boolean,
    private readonly maxAnswerBytes: number,
    private readonly resolve: (answer: Answer) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    this.onAbort = signal ? () => this.abortCall?.(signal.reason as Error) : null;
  }

  /**
   * Dispatches, unless the caller's signal already fired (the promise is then rejected with its
   * reason). `wholeMs`: the answer must be complete by then (non-streamed calls), or the call fails
   * as timed out.
   */
  start(dispatcher: Dispatcher, opts: Dispatcher.DispatchOptions, wholeMs: number | null): void {
    const { signal } = this;
    if (signal) {
      if (signal.aborted) return this.reject(signal.reason);
      signal.addEventListener('abort', this.onAbort!, { once: true });
    }
    if (wholeMs !== null) this.deadline = setTimeout(() => this.expire(), wholeMs).unref();
    dispatcher.dispatch(opts, this);
  }

  private expire(): void {
    this.deadline = null;
    if (this.phase !== 'head' && this.phase !== 'whole') return;
    this.fail(new ProviderFailure(504, 'the upstream timed out', { network: 'timeout' }));
  }

  /** Gives up an answer not settled yet: the caller gets `failure`, the upstream request is closed. */
  private fail(failure: ProviderFailure): void {
    this.phase = 'settled';
    this.stopWatching();
    this.chunks = [];
    this.size = 0;
    this.failedWith = failure;
    this.reject(failure);
    this.abortCall?.(failure);
  }

  private stopWatching(): void {
    if (this.onAbort) this.signal!.removeEventListener('abort', this.onAbort);
    if (this.deadline) {
      clearTimeout(this.deadline);
      this.deadline = null;
    }
  }

  private notify(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  private take(): Buffer {
    const b = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
    this.chunks = [];
    this.size = 0;
    return b;
  }

  private settleWhole(): void {
    this.phase = 'settled';
    this.stopWatching();
    const { status } = this;
    this.resolve({ status, text: this.take().toString('utf8'), headers: status >= 300 ? retryHeaders(this.rawHeaders) : {} });
  }

  private drained(): void {
    if (this.cutOff) clearTimeout(this.cutOff);
  }

  // BodyReader, for a streamed 2xx.

  async read(): Promise<Buffer | null> {
    for (;;) {
      if (this.size > 0) {
        const b = this.take();
        if (this.paused) {
          this.paused = false;
          this.resumeReading?.();
        }
        return b;
      }
      if (this.failure !== null) throw this.failure;
      if (this.ended) return null;
      await new Promise<void>((r) => (this.wake = r));
    }
  }

  release(): void {
    if (this.draining) return;
    this.draining = true;
    this.chunks = [];
    this.size = 0;
    if (this.paused) {
      this.paused = false;
      this.resumeReading?.();
    }
    if (this.ended || this.failure !== null) return;
    // An upstream that keeps the body open after its answer is cut off soon.
    this.cutOff = setTimeout(() => this.destroy(), DRAIN_MS).unref();
  }

  destroy(): void {
    if (this.ended || this.failure !== null) return;
    this.failure = new Error('the upstream answer was closed before its end');
    this.stopWatching();
    this.abortCall?.(this.failure as Error);
  }

  // undici's handler.

  onConnect(abort: (e?: Error) => void): void {
    this.abortCall = abort;
    if (this.signal?.aborted) abort(this.signal.reason as Error);
    else if (this.failedWith) abort(this.failedWith);
  }

  onHeaders(statusCode: number, headers: Buffer[], resume: () => void): boolean {
    this.status = statusCode;
    this.rawHeaders = headers;
    this.resumeReading = resume;
    if (this.stream && statusCode >= 200 && statusCode < 300) {
      this.phase = 'stream';
      this.json = saysJson(headers);
      this.resolve({ status: statusCode, reader: this });
    } else {
      this.phase = 'whole';
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.phase === 'whole') {
      this.chunks.push(chunk);
      this.size += chunk.length;
      if (this.status >= 300 && this.size >= MAX_ERROR_BODY) {
        this.chunks = [this.take().subarray(0, MAX_ERROR_BODY)];
        this.size = MAX_ERROR_BODY;
        this.settleWhole();
        this.abortCall?.(new Error('error answer too large'));
      } else if (this.size > this.maxAnswerBytes) {
        this.fail(answerTooLarge());
      }
      return true;
    }
    if (this.phase !== 'stream' || this.draining) return true;
    this.chunks.push(chunk);
    this.size += chunk.length;
    this.notify();
    if (this.size < STREAM_HIGH_WATER) return true;
    this.paused = true;
    return false;
  }

  onComplete(): void {
    if (this.phase === 'whole') return this.settleWhole();
    this.ended = true;
    this.stopWatching();
    this.drained();
    this.notify();
  }

  onError(e: Error): void {
    if (this.phase === 'head' || this.phase === 'whole') {
      this.phase = 'settled';
      this.stopWatching();
      this.reject(e);
      return;
    }
    if (this.phase !== 'stream') return;
    this.failure ??= e;
    this.stopWatching();
    this.drained();
    this.notify();
  }
}

function dispatchAnswer(
  dispatcher: Dispatcher,
  opts: Dispatcher.DispatchOptions,
  signal: CancelSignal | undefined,
  stream: boolean,
  wholeMs: number | null,
  maxAnswerBytes: number,
): Promise<Answer> {
  return new Promise((resolve, reject) => new UpstreamCall(signal, stream, maxAnswerBytes, resolve, reject).start(dispatcher, opts, wholeMs));
}

interface SplitBase {
  readonly origin: string;
  readonly basePath: string;
}

function splitBase(baseUrl: string): SplitBase {
  const u = new URL(baseUrl);
  return { origin: u.origin, basePath: u.pathname.replace(/\/+$/, '') };
}

/**
 * One keep-alive undici Pool per upstream origin (size from the provider's `connections`), with the
 * provider's `timeout_ms` as the limit for connecting (at most 10 s), for the response headers
 * (a non-streamed answer arrives whole, so this bounds the generation) and between body chunks.
 * The caller's AbortSignal is passed down: a client that goes away aborts the upstream request.
 */
export function createUpstreamTransport(options: UpstreamTransportOptions = {}): UpstreamTransport {
  const pools = new Map<string, Pool>();
  const maxAnswerBytes = options.maxAnswerBytes ?? Infinity;
  // A catalog has a handful of base URLs; parsing one per request was a visible cost.
  const bases = new Map<string, SplitBase>();
  const baseOf = (baseUrl: string): SplitBase => {
    let split = bases.get(baseUrl);
    if (!split) bases.set(baseUrl, (split = splitBase(baseUrl)));
    return split;
  };
  let downloader: Agent | null = null;

  const dispatcherFor = (provider: ProviderConfig, origin: string): Dispatcher => {
    if (options.dispatcher) return options.dispatcher;
    let pool = pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, {
        connections: provider.connections,
        keepAliveTimeout: 30_000,
        connect: { timeout: provider.connectTimeoutMs },
        headersTimeout: provider.timeoutMs,
        bodyTimeout: provider.timeoutMs,
      });
      pools.set(origin, pool);
    }
    return pool;
  };

  async function call(provider: ProviderConfig, request: UpstreamPost, readError: ErrorBodyReader, stream: true): Promise<{ reader: StreamBody }>;
  async function call(provider: ProviderConfig, request: UpstreamPost, readError: ErrorBodyReader, stream: false): Promise<{ text: string }>;
  async function call(provider: ProviderConfig, request: UpstreamPost, readError: ErrorBodyReader, stream: boolean): Promise<{ text?: string; reader?: StreamBody }> {
    throwIfAborted(request.signal);
    const { origin, basePath } = baseOf(provider.baseUrl);
    let answer: Answer;
    try {
      answer = await dispatchAnswer(
        dispatcherFor(provider, origin),
        {
          origin,
          path: basePath + request.path,
          method: 'POST',
          // Object.assign, not a spread followed by new keys: on Node 20 each key added after a
          // spread costs some 0.7 µs (docs/bench-gateway.md, "Session 8").
          headers: Object.assign({}, request.headers, stream ? STREAM_HEADERS : JSON_HEADERS),
          body: JSON.stringify(request.body),
          ...limits(provider, stream),
        },
        request.signal,
        stream,
        stream ? null : provider.timeoutMs,
        maxAnswerBytes,
      );
    } catch (e) {
      throw networkFailure(e, request.signal);
    }
    if (answer.reader) return { reader: answer.reader };
    if (answer.status < 200 || answer.status >= 300) {
      const retryAfterMs = parseRetryAfter(answer.headers, Date.now());
      const read = readError(answer.text);
      const [status, message] = typeof read === 'string' ? [answer.status, read] : [read.status, read.message];
      throw new ProviderFailure(status, message, retryAfterMs === undefined ? {} : { retryAfterMs });
    }
    return { text: answer.text };
  }

  return {
    postJson: async (provider, request, readError) => {
      const answer = await call(provider, request, readError, false);
      return parseJsonAnswer(answer.text);
    },

    postStream: async (provider, request, readError) => (await call(provider, request, readError, true)).reader,

    async download(url, timeoutMs, signal) {
      throwIfAborted(signal);
      const dispatcher = options.dispatcher ?? (downloader ??= new Agent({ connect: { timeout: Math.min(10_000, timeoutMs) } }));
      // The whole download within timeoutMs, as a non-streamed call's answer: undici's timeouts
      // restart at every byte. The caller's abort comes through the same signal.
      const limit = new Cancellation();
      const timer = setTimeout(() => limit.abort(new ProviderFailure(504, 'the upstream timed out', { network: 'timeout' })), timeoutMs).unref();
      const onAbort = () => limit.abort(signal!.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        const u = new URL(url);
        const res = await dispatcher.request({
          origin: u.origin,
          path: u.pathname + u.search,
          method: 'GET',
          signal: limit.toAbortSignal(),
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
        if (res.statusCode !== 200) {
          res.body.destroy();
          throw new ProviderFailure(502, 'the generated image could not be downloaded');
        }
        return await readCapped(res.body, MAX_DOWNLOAD);
      } catch (e) {
        throw networkFailure(limit.aborted && !signal?.aborted ? limit.reason : e, signal);
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      }
    },

    async close() {
      const all = [...pools.values()].map((p) => p.close());
      if (downloader) all.push(downloader.close());
      pools.clear();
      downloader = null;
      await Promise.all(all);
    },
  };
}
