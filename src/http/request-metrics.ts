import type { Registry } from 'prom-client';

/** The labels of one request's series. */
export interface RequestLabels {
  readonly method: string;
  readonly route: string;
  readonly status: string;
}

interface Series {
  readonly labels: RequestLabels;
  count: number;
  sum: number;
  /** Observations per bucket, not cumulative; the last slot counts those above every bound. */
  readonly buckets: number[];
}

/**
 * Requests by method, route and status: the counter `http_requests_total` and the histogram
 * `http_request_duration_seconds`, registered in a prom-client registry and exposed exactly as
 * prom-client's Counter and Histogram expose them (a test compares both byte for byte).
 *
 * Recording a request is a Map lookup and three additions. prom-client validates and hashes the
 * label object on every inc() and observe() (two per request), a visible share of a gateway
 * request's own work in the profiles (docs/bench-gateway.md, "Session 7"); the series are
 * turned into prom-client's shapes only when scraped.
 */
export class RequestMetrics {
  private readonly series = new Map<string, Series>();

  constructor(
    registry: Registry,
    private readonly names: { readonly counter: string; readonly counterHelp: string; readonly histogram: string; readonly histogramHelp: string },
    private readonly bounds: readonly number[],
  ) {
    registry.registerMetric({
      name: names.counter,
      help: names.counterHelp,
      type: 'counter',
      aggregator: 'sum',
      get: async () => ({
        name: names.counter,
        help: names.counterHelp,
        type: 'counter',
        aggregator: 'sum',
        values: [...this.series.values()].map((s) => ({ value: s.count, labels: { ...s.labels } })),
      }),
      reset: () => this.series.clear(),
    } as never);
    registry.registerMetric({
      name: names.histogram,
      help: names.histogramHelp,
      type: 'histogram',
      aggregator: 'sum',
      getForPromString: async () => this.histogram(false),
      get: async () => this.histogram(true),
      reset: () => this.series.clear(),
    } as never);
  }

  record(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let s = this.series.get(key);
    if (!s) {
      s = { labels: { method, route, status: String(status) }, count: 0, sum: 0, buckets: new Array<number>(this.bounds.length + 1).fill(0) };
      this.series.set(key, s);
    }
    s.count += 1;
    s.sum += seconds;
    let b = 0;
    while (b < this.bounds.length && seconds > this.bounds[b]!) b++;
    s.buckets[b]! += 1;
  }

  /**
   * prom-client's histogram values: per series the cumulative buckets (`le` first, then the
   * series' labels as shared labels), `+Inf`, sum and count; `splay` merges the labels as its
   * get() does for JSON.
   */
  private histogram(splay: boolean) {
    const name = this.names.histogram;
    const values: object[] = [];
    // Buckets carry a null exemplar, sum and count an undefined one, as prom-client's do.
    const pair = (le: object, value: number, metricName: string, labels: RequestLabels, exemplar: null | undefined) =>
      splay ? { labels: { ...le, ...labels }, value, metricName, exemplar } : { labels: le, sharedLabels: { ...labels }, value, metricName, exemplar };
    for (const s of this.series.values()) {
      let acc = 0;
      this.bounds.forEach((bound, i) => {
        acc += s.buckets[i]!;
        values.push(pair({ le: bound }, acc, `${name}_bucket`, s.labels, null));
      });
      values.push(pair({ le: '+Inf' }, s.count, `${name}_bucket`, s.labels, null));
      values.push(pair({}, s.sum, `${name}_sum`, s.labels, undefined));
      values.push(pair({}, s.count, `${name}_count`, s.labels, undefined));
    }
    return { name, help: this.names.histogramHelp, type: 'histogram', values, aggregator: 'sum' };
  }
}
