import { Agent, Pool, type Dispatcher } from 'undici';
import type { ProviderConfig } from '../../config/catalog.ts';
import { ProviderFailure } from '../providers/provider-failure.ts';

export interface UpstreamTransportOptions {
  /**
   * Send everything through this dispatcher instead of the per-upstream pools (tests point it
   * anywhere: a MockAgent, an Agent with other limits). The caller owns and closes it.
   */
  readonly dispatcher?: Dispatcher;
}

export interface UpstreamPost {
  /** Path below the provider's base URL, e.g. `/chat/completions`. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly stream: boolean;
  readonly signal?: AbortSignal | undefined;
}

/**
 * The limits of one call. Non-streamed: the whole answer within `timeout_ms` (it arrives with the
 * headers). Streamed: headers within the first-byte timeout (the first content is watched by the
 * caller), then at most the idle timeout between chunks.
 */
function limits(provider: ProviderConfig, stream: boolean): { headersTimeout: number; bodyTimeout: number } {
  return stream
    ? { headersTimeout: Math.min(provider.firstByteTimeoutMs, provider.timeoutMs), bodyTimeout: provider.idleTimeoutMs }
    : { headersTimeout: provider.timeoutMs, bodyTimeout: provider.timeoutMs };
}

export type ResponseBody = Dispatcher.ResponseData['body'];

export interface UpstreamTransport {
  /** POSTs JSON; resolves on any 2xx; a non-2xx becomes an ProviderFailure read by `readError`. */
  post(provider: ProviderConfig, request: UpstreamPost, readError: (bodyText: string) => string): Promise<ResponseBody>;
  /**
   * A non-streamed post whose answer is read whole and parsed: resolves to the 2xx answer's JSON
   * (a ProviderFailure 502 when it is not JSON); failures as post's.
   */
  postJson(provider: ProviderConfig, request: Omit<UpstreamPost, 'stream'>, readError: (bodyText: string) => string): Promise<unknown>;
  /** GETs bytes (generated images an upstream answered with a URL). */
  download(url: string, timeoutMs: number, signal?: AbortSignal): Promise<Buffer>;
  close(): Promise<void>;
}

const MAX_ERROR_BODY = 64 * 1024;
const MAX_DOWNLOAD = 64 * 1024 * 1024;
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/** An aborted caller gets its own abort reason back, never an upstream error. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
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

/** Network-level failures as upstream failures: timeouts are 504, the rest (refused, reset, DNS) 502. */
export function networkFailure(error: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted) return signal.reason ?? error;
  if (error instanceof ProviderFailure) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && TIMEOUT_CODES.has(code)) return new ProviderFailure(504, 'the upstream timed out', { network: 'timeout' });
  return new ProviderFailure(502, 'the upstream could not be reached', { network: 'connection' });
}

async function readCapped(body: ResponseBody, cap: number): Promise<Buffer> {
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

/** The retry-after headers of an answer's raw header list (names and values alternating). */
function retryHeaders(raw: readonly Buffer[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toString('latin1').toLowerCase();
    if (name === 'retry-after' || name === 'retry-after-ms') out[name] ??= raw[i + 1]!.toString('latin1');
  }
  return out;
}

/**
 * Collects one non-streamed answer through undici's dispatch handler, without the Readable, the
 * async resource and the parsed header object that `request()` builds per call: for a gateway
 * answering from memory those were a visible share of a request's CPU and garbage. The caller's
 * signal aborts the request as request()'s would.
 */
function collectAnswer(
  dispatcher: Dispatcher,
  opts: Dispatcher.DispatchOptions,
  signal: AbortSignal | undefined,
): Promise<{ status: number; body: string; headers: Record<string, string> }> {
  return new Promise((resolve, reject) => {
    let status = 0;
    let rawHeaders: Buffer[] = [];
    let chunks: Buffer[] = [];
    let size = 0;
    let abort: ((e?: Error) => void) | null = null;
    let settled = false;
    const onAbort = () => abort?.(signal!.reason as Error);
    const done = (): void => {
      settled = true;
      signal?.removeEventListener('abort', onAbort);
    };
    const text = () => (chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8'));
    const answer = () => ({ status, body: text(), headers: status >= 300 ? retryHeaders(rawHeaders) : {} });
    if (signal) {
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      signal.addEventListener('abort', onAbort, { once: true });
    }
    const handler: Dispatcher.DispatchHandler = {
      onConnect(a) {
        abort = a;
        if (signal?.aborted) a(signal.reason as Error);
      },
      onHeaders(statusCode, headers) {
        status = statusCode;
        rawHeaders = headers;
        return true;
      },
      onData(chunk) {
        if (settled) return true;
        chunks.push(chunk);
        size += chunk.length;
        // An error answer is read up to a cap, then given up (its connection with it).
        if (status >= 300 && size >= MAX_ERROR_BODY) {
          chunks = [Buffer.concat(chunks, size).subarray(0, MAX_ERROR_BODY)];
          size = MAX_ERROR_BODY;
          done();
          resolve(answer());
          abort?.(new Error('error answer too large'));
        }
        return true;
      },
      onComplete() {
        if (settled) return;
        done();
        resolve(answer());
      },
      onError(e) {
        if (settled) return;
        done();
        reject(e);
      },
    };
    dispatcher.dispatch(opts, handler);
  });
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

  return {
    async post(provider, request, readError) {
      throwIfAborted(request.signal);
      const { origin, basePath } = baseOf(provider.baseUrl);
      let response: Dispatcher.ResponseData;
      try {
        response = await dispatcherFor(provider, origin).request({
          origin,
          path: basePath + request.path,
          method: 'POST',
          headers: {
            ...request.headers,
            'content-type': 'application/json',
            accept: request.stream ? 'text/event-stream' : 'application/json',
          },
          body: JSON.stringify(request.body),
          signal: request.signal ?? null,
          ...limits(provider, request.stream),
        });
      } catch (e) {
        throw networkFailure(e, request.signal);
      }
      if (response.statusCode >= 200 && response.statusCode < 300) return response.body;
      let text = '';
      try {
        text = (await readCapped(response.body, MAX_ERROR_BODY)).toString('utf8');
      } catch (e) {
        throw networkFailure(e, request.signal);
      }
      const retryAfterMs = parseRetryAfter(response.headers, Date.now());
      throw new ProviderFailure(response.statusCode, readError(text), retryAfterMs === undefined ? {} : { retryAfterMs });
    },

    async postJson(provider, request, readError) {
      throwIfAborted(request.signal);
      const { origin, basePath } = baseOf(provider.baseUrl);
      let answer: Awaited<ReturnType<typeof collectAnswer>>;
      try {
        answer = await collectAnswer(
          dispatcherFor(provider, origin),
          {
            origin,
            path: basePath + request.path,
            method: 'POST',
            headers: { ...request.headers, 'content-type': 'application/json', accept: 'application/json' },
            body: JSON.stringify(request.body),
            headersTimeout: provider.timeoutMs,
            bodyTimeout: provider.timeoutMs,
          },
          request.signal,
        );
      } catch (e) {
        throw networkFailure(e, request.signal);
      }
      if (answer.status < 200 || answer.status >= 300) {
        const retryAfterMs = parseRetryAfter(answer.headers, Date.now());
        throw new ProviderFailure(answer.status, readError(answer.body), retryAfterMs === undefined ? {} : { retryAfterMs });
      }
      try {
        return JSON.parse(answer.body) as unknown;
      } catch {
        throw new ProviderFailure(502, 'the upstream answer is not JSON');
      }
    },

    async download(url, timeoutMs, signal) {
      throwIfAborted(signal);
      const dispatcher = options.dispatcher ?? (downloader ??= new Agent({ connect: { timeout: Math.min(10_000, timeoutMs) } }));
      try {
        const u = new URL(url);
        const res = await dispatcher.request({
          origin: u.origin,
          path: u.pathname + u.search,
          method: 'GET',
          signal: signal ?? null,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
        if (res.statusCode !== 200) {
          res.body.destroy();
          throw new ProviderFailure(502, 'the generated image could not be downloaded');
        }
        return await readCapped(res.body, MAX_DOWNLOAD);
      } catch (e) {
        throw networkFailure(e, signal);
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
