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
