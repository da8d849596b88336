import { Pool } from 'undici';

export interface LoadOptions {
  readonly url: string;
  readonly method?: 'GET' | 'POST';
  readonly headers?: Record<string, string>;
  /** A fixed body, or one made per request (e.g. signed trades). */
  readonly body?: string | (() => string | { body: string; headers: Record<string, string> });
  readonly concurrency: number;
  readonly durationMs: number;
  readonly warmupMs?: number;
  /**
   * The clients' own address (any 127.x.y.z on Linux): a run from an address of its own starts
   * with a fresh per-IP rate limit minute.
   */
  readonly localAddress?: string;
}

export interface LoadResult {
  readonly requests: number;
  readonly errors: number;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly statuses: Record<string, number>;
  /** Non-2xx answers by status and body (the first 200 characters), with counts. */
  readonly failures: Record<string, number>;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * Closed-loop load: `concurrency` keep-alive clients each send a request as soon as the previous
 * answer (whole body) arrived, for `durationMs` after a warm-up. Latency is to the last byte.
 */
export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const u = new URL(opts.url);
  const pool = new Pool(u.origin, {
    connections: opts.concurrency,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    ...(opts.localAddress ? { localAddress: opts.localAddress } : {}),
  });
  const path = u.pathname + u.search;
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const failures: Record<string, number> = {};
  let errors = 0;
  let recording = false;
  let stop = false;

  const one = async () => {
    let body: string | undefined;
    let headers = opts.headers ?? {};
    if (typeof opts.body === 'function') {
      const made = opts.body();
      if (typeof made === 'string') body = made;
      else {
        body = made.body;
        headers = { ...headers, ...made.headers };
      }
    } else body = opts.body;
    const t0 = performance.now();
    try {
      const res = await pool.request({ path, method: opts.method ?? 'GET', headers, body });
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      // A failure's body says why; a success's is only drained.
      let text = '';
      for await (const chunk of res.body) if (!ok && text.length < 200) text += String(chunk);
      if (recording) {
        latencies.push(performance.now() - t0);
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        if (!ok) {
          const k = `${res.statusCode} ${text.slice(0, 200)}`;
          failures[k] = (failures[k] ?? 0) + 1;
        }
      }
    } catch {
      if (recording) errors++;
    }
  };

  const worker = async () => {
    while (!stop) await one();
  };
  const workers = Array.from({ length: opts.concurrency }, worker);
  await new Promise((r) => setTimeout(r, opts.warmupMs ?? 1000));
  recording = true;
  const start = performance.now();
  await new Promise((r) => setTimeout(r, opts.durationMs));
  recording = false;
  const elapsed = performance.now() - start;
  stop = true;
  await Promise.all(workers);
  await pool.close();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    rps: (latencies.length / elapsed) * 1000,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    statuses,
    failures,
  };
}

export function formatResult(name: string, r: LoadResult): string {
  const failures = Object.entries(r.failures).sort((a, b) => b[1] - a[1]);
  return (
    `${name.padEnd(40)} ${r.rps.toFixed(0).padStart(8)} req/s  p50 ${r.p50Ms.toFixed(2)} ms  p99 ${r.p99Ms.toFixed(2)} ms  errors ${r.errors}  statuses ${JSON.stringify(r.statuses)}` +
    failures.map(([k, count]) => `\n  ${String(count).padStart(6)} x ${k}`).join('')
  );
}
