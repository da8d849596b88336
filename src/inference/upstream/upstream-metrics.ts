import { Gauge, type Registry } from 'prom-client';
import type { Deployment } from '../../config/catalog.ts';
import { LabeledCounter, LabeledHistogram, type CounterSeries, type HistogramSeries } from '../../shared/labeled-metrics.ts';
import type { CallOutcome, DeploymentHealth } from './deployment-health.ts';

const STATE_VALUE = { closed: 0, half_open: 1, open: 2 } as const;

/**
 * Per-deployment upstream metrics in `registry`: calls by outcome, failures by class, call
 * latency (to the answer, or to a stream's first content), calls in flight and breaker state
 * (0 closed, 1 half-open, 2 open). Returns the function that stops recording.
 */
export function installUpstreamMetrics(registry: Registry, health: DeploymentHealth): () => void {
  const labels = ['provider', 'deployment'] as const;
  const calls = new LabeledCounter(registry, {
    name: 'upstream_requests_total',
    help: 'Upstream calls by deployment and outcome (success, client_error, aborted, or a failure class)',
    labelNames: [...labels, 'outcome'],
  });
  const errors = new LabeledCounter(registry, {
    name: 'upstream_errors_total',
    help: 'Failed upstream calls by deployment and class (connection, timeout, rate_limited, server_error, refused)',
    labelNames: [...labels, 'class'],
  });
  const latency = new LabeledHistogram(registry, {
    name: 'upstream_request_duration_seconds',
    help: 'Upstream call time to the answer, or to the first content of a stream',
    labelNames: labels,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
  });
  new Gauge({
    name: 'upstream_breaker_state',
    help: 'Circuit breaker per deployment: 0 closed, 1 half-open, 2 open',
    labelNames: labels,
    registers: [registry],
    collect() {
      for (const s of health.snapshot()) this.set({ provider: s.deployment.provider.id, deployment: s.deployment.key }, STATE_VALUE[s.state]);
    },
  });
  new Gauge({
    name: 'upstream_in_flight',
    help: 'Upstream calls in flight per deployment',
    labelNames: labels,
    registers: [registry],
    collect() {
      for (const s of health.snapshot()) this.set({ provider: s.deployment.provider.id, deployment: s.deployment.key }, s.inFlight);
    },
  });

  // Each deployment's series, looked up once per outcome and kept.
  interface Kept {
    readonly calls: Map<CallOutcome, CounterSeries>;
    readonly errors: Map<CallOutcome, CounterSeries>;
    latency: HistogramSeries | null;
  }
  const kept = new Map<Deployment, Kept>();
  const labelsOf = (d: Deployment) => ({ provider: d.provider.id, deployment: d.key });
  return health.subscribe((e) => {
    const d = e.deployment;
    let k = kept.get(d);
    if (!k) kept.set(d, (k = { calls: new Map(), errors: new Map(), latency: null }));
    let call = k.calls.get(e.outcome);
    if (!call) k.calls.set(e.outcome, (call = calls.series({ ...labelsOf(d), outcome: e.outcome })));
    call.inc();
    if (e.outcome !== 'success' && e.outcome !== 'client_error' && e.outcome !== 'aborted') {
      let error = k.errors.get(e.outcome);
      if (!error) k.errors.set(e.outcome, (error = errors.series({ ...labelsOf(d), class: e.outcome })));
      error.inc();
    }
    if (e.outcome !== 'aborted') (k.latency ??= latency.series(labelsOf(d))).observe(e.seconds);
  });
}
