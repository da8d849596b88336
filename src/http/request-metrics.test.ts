import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Counter, Histogram, Registry } from 'prom-client';
import { LATENCY_BUCKETS, REQUEST_METRIC_NAMES as names } from './metrics.ts';
import { RequestMetrics } from './request-metrics.ts';

/** The same requests recorded by RequestMetrics and by prom-client's own Counter and Histogram. */
function both(requests: readonly [string, string, number, number][]) {
  const ours = new Registry();
  const metrics = new RequestMetrics(ours, names, LATENCY_BUCKETS);
  const theirs = new Registry();
  const labelNames = ['method', 'route', 'status'] as const;
  const counter = new Counter({ name: names.counter, help: names.counterHelp, labelNames, registers: [theirs] });
  const histogram = new Histogram({ name: names.histogram, help: names.histogramHelp, labelNames, buckets: LATENCY_BUCKETS, registers: [theirs] });
  for (const [method, route, status, seconds] of requests) {
    metrics.record(method, route, status, seconds);
    const labels = { method, route, status: String(status) };
    counter.inc(labels);
    histogram.observe(labels, seconds);
  }
  return { ours, theirs };
}

describe('RequestMetrics', () => {
  const requests: [string, string, number, number][] = [
    ['POST', '/v1/chat/completions', 200, 0.0042],
    ['POST', '/v1/chat/completions', 200, 0.001],
    ['POST', '/v1/chat/completions', 200, 0.0010001],
    ['POST', '/v1/chat/completions', 402, 0.0003],
    ['GET', '/api/markets/:id', 200, 0.25],
    ['GET', 'unmatched', 404, 75],
    ['GET', '/a"quoted\\route\nline', 200, 0.06],
    ['POST', '/v1/chat/completions', 200, 1e-7],
  ];

  it('exposes exactly what prom-client exposes for the same requests, as text and as JSON', async () => {
    const { ours, theirs } = both(requests);
    assert.equal(await ours.metrics(), await theirs.metrics());
    assert.deepEqual(await ours.getMetricsAsJSON(), await theirs.getMetricsAsJSON());
  });

  it('exposes nothing before the first request, and starts over when the registry is reset', async () => {
    const { ours, theirs } = both([]);
    assert.equal(await ours.metrics(), await theirs.metrics());
    const again = both(requests);
    again.ours.resetMetrics();
    again.theirs.resetMetrics();
    assert.equal(await again.ours.metrics(), await again.theirs.metrics());
  });
});
