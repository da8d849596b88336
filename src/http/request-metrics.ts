import type { Registry } from 'prom-client';
import { LabeledCounter, LabeledHistogram, type CounterSeries, type HistogramSeries } from '../shared/labeled-metrics.ts';

/**
 * Requests by method, route and status: the counter `http_requests_total` and the histogram
 * `http_request_duration_seconds`, exposed exactly as prom-client's Counter and Histogram
 * (src/shared/labeled-metrics.ts). Recording a request is one Map lookup and a few additions.
 */
export class RequestMetrics {
  private readonly counter: LabeledCounter<'method' | 'route' | 'status'>;
  private readonly histogram: LabeledHistogram<'method' | 'route' | 'status'>;
  private readonly byRequest = new Map<string, { readonly count: CounterSeries; readonly latency: HistogramSeries }>();

  constructor(
    registry: Registry,
    names: { readonly counter: string; readonly counterHelp: string; readonly histogram: string; readonly histogramHelp: string },
    bounds: readonly number[],
  ) {
    const labelNames = ['method', 'route', 'status'] as const;
    this.counter = new LabeledCounter(registry, { name: names.counter, help: names.counterHelp, labelNames });
    this.histogram = new LabeledHistogram(registry, { name: names.histogram, help: names.histogramHelp, labelNames, buckets: bounds });
  }

  record(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let s = this.byRequest.get(key);
    if (!s) {
      const labels = { method, route, status: String(status) };
      this.byRequest.set(key, (s = { count: this.counter.series(labels), latency: this.histogram.series(labels) }));
    }
    s.count.inc();
    s.latency.observe(seconds);
  }
}
