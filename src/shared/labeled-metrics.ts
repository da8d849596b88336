import type { Registry } from 'prom-client';

/**
 * A counter and a histogram with fixed label names, registered in a prom-client registry and
 * exposed exactly as prom-client's Counter and Histogram expose them (a test compares both byte
 * for byte, as text and as JSON).
 *
 * prom-client validates and hashes the label object on every inc() and observe(), a visible
 * share of a proxied request's own work in the profiles (docs/bench-gateway.md, "Session 7").
 * Here a caller looks a series up once, keeps it, and counts on it with plain additions; the
 * series become prom-client's shapes only when scraped.
 */

type Labels<L extends string> = Readonly<Record<L, string>>;

/**
 * One label combination. It is listed (exposed) from its first count on, in the order of first
 * counts, as prom-client's are; a registry reset unlists and zeroes every series, and a series
 * kept by a caller lists itself again at its next count.
 */
abstract class Series {
  listed = false;
  constructor(
    readonly labels: Readonly<Record<string, string>>,
    private readonly key: string,
    private readonly list: Map<string, Series>,
  ) {}
  protected relist(): void {
    this.listed = true;
    this.list.set(this.key, this);
  }
  abstract zero(): void;
}

export class CounterSeries extends Series {
  value = 0;
  inc(by = 1): void {
    if (!this.listed) this.relist();
    this.value += by;
  }
  zero(): void {
    this.value = 0;
  }
}

export class HistogramSeries extends Series {
  count = 0;
  sum = 0;
  /** Observations per bucket, not cumulative; the last slot counts those above every bound. */
  readonly buckets: number[];
  constructor(labels: Readonly<Record<string, string>>, key: string, list: Map<string, Series>, private readonly bounds: readonly number[]) {
    super(labels, key, list);
    this.buckets = new Array<number>(bounds.length + 1).fill(0);
  }
  observe(value: number): void {
    if (!this.listed) this.relist();
    this.count += 1;
    this.sum += value;
    let b = 0;
    while (b < this.bounds.length && value > this.bounds[b]!) b++;
    this.buckets[b]! += 1;
  }
  zero(): void {
    this.count = 0;
    this.sum = 0;
    this.buckets.fill(0);
  }
}

abstract class Labeled<L extends string, S extends Series> {
  /** The series counted on since the last reset, in the order of their first counts. */
  protected readonly all = new Map<string, S>();
  /** Every series made. */
  private readonly made = new Map<string, S>();
  constructor(protected readonly labelNames: readonly L[]) {}

  /** The series of these labels, made on first use. Keep it: counting on it needs no lookup. */
  series(labels: Labels<L>): S {
    let key = '';
    for (const n of this.labelNames) key += `${labels[n]}\u0000`;
    let s = this.made.get(key);
    if (!s) this.made.set(key, (s = this.make(labels, key, this.all as Map<string, Series>)));
    return s;
  }

  protected reset(): void {
    for (const s of this.all.values()) {
      s.listed = false;
      s.zero();
    }
    this.all.clear();
  }

  protected abstract make(labels: Labels<L>, key: string, list: Map<string, Series>): S;
}

export class LabeledCounter<L extends string> extends Labeled<L, CounterSeries> {
  constructor(registry: Registry, opts: { readonly name: string; readonly help: string; readonly labelNames: readonly L[] }) {
    super(opts.labelNames);
    const { name, help } = opts;
    registry.registerMetric({
      name,
      help,
      type: 'counter',
      aggregator: 'sum',
      get: async () => ({ name, help, type: 'counter', aggregator: 'sum', values: [...this.all.values()].map((s) => ({ value: s.value, labels: { ...s.labels } })) }),
      reset: () => this.reset(),
    } as never);
  }

  protected make(labels: Labels<L>, key: string, list: Map<string, Series>): CounterSeries {
    return new CounterSeries(labels, key, list);
  }
}

export class LabeledHistogram<L extends string> extends Labeled<L, HistogramSeries> {
  constructor(
    registry: Registry,
    private readonly opts: { readonly name: string; readonly help: string; readonly labelNames: readonly L[]; readonly buckets: readonly number[] },
  ) {
    super(opts.labelNames);
    registry.registerMetric({
      name: opts.name,
      help: opts.help,
      type: 'histogram',
      aggregator: 'sum',
      getForPromString: async () => this.values(false),
      get: async () => this.values(true),
      reset: () => this.reset(),
    } as never);
  }

  protected make(labels: Labels<L>, key: string, list: Map<string, Series>): HistogramSeries {
    return new HistogramSeries(labels, key, list, this.opts.buckets);
  }

  /**
   * prom-client's histogram values: per series the cumulative buckets (`le` first, then the
   * series' labels as shared labels), `+Inf`, sum and count; `splay` merges the labels as its
   * get() does for JSON.
   */
  private values(splay: boolean) {
    const { name, help, buckets } = this.opts;
    const values: object[] = [];
    // Buckets carry a null exemplar, sum and count an undefined one, as prom-client's do.
    const pair = (le: object, value: number, metricName: string, labels: object, exemplar: null | undefined) =>
      splay ? { labels: { ...le, ...labels }, value, metricName, exemplar } : { labels: le, sharedLabels: { ...labels }, value, metricName, exemplar };
    for (const s of this.all.values()) {
      let acc = 0;
      buckets.forEach((bound, i) => {
        acc += s.buckets[i]!;
        values.push(pair({ le: bound }, acc, `${name}_bucket`, s.labels, null));
      });
      values.push(pair({ le: '+Inf' }, s.count, `${name}_bucket`, s.labels, null));
      values.push(pair({}, s.sum, `${name}_sum`, s.labels, undefined));
      values.push(pair({}, s.count, `${name}_count`, s.labels, undefined));
    }
    return { name, help, type: 'histogram', values, aggregator: 'sum' };
  }
}
