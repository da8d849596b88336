import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { DeploymentHealth } from './deployment-health.ts';

const STATE_VALUE = { closed: 0, half_open: 1, open: 2 } as const;

/**
 * Per-deployment upstream metrics in `registry`: calls by outcome, failures by class, call
 * latency (to the answer, or to a stream's first content), calls in flight and breaker state
 * (0 closed, 1 half-open, 2 open). Returns the function that stops recording.
 */
export function installUpstreamMetrics(registry: Registry, health: DeploymentHealth): () => void {
  const labels = ['provider', 'deployment'] as const;
  const calls = new Counter({
    name: 'upstream_requests_total',
    help: 'Upstream calls by deployment and outcome (success, client_error, aborted, or a failure class)',
    labelNames: [...labels, 'outcome'] as const,
    registers: [registry],
  });
  const errors = new Counter({
    name: 'upstream_errors_total',
    help: 'Failed upstream calls by deployment and class (connection, timeout, rate_limited, server_error, refused)',
    labelNames: [...labels, 'class'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'upstream_request_duration_seconds',
    help: 'Upstream call time to the answer, or to the first content of a stream',
    labelNames: labels,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [registry],
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
  return health.subscribe((e) => {
    const l = { provider: e.deployment.provider.id, deployment: e.deployment.key };
    calls.inc({ ...l, outcome: e.outcome });
    if (e.outcome !== 'success' && e.outcome !== 'client_error' && e.outcome !== 'aborted') errors.inc({ ...l, class: e.outcome });
    if (e.outcome !== 'aborted') latency.observe(l, e.seconds);
  });
}
