import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Counter, Histogram, Registry } from 'prom-client';
import { LabeledCounter, LabeledHistogram } from './labeled-metrics.ts';

const labelNames = ['provider', 'deployment', 'outcome'] as const;
const buckets = [0.05, 0.1, 1, 10];

/** The same counts and observations made on ours and on prom-client's own Counter and Histogram. */
function pair() {
  const ours = new Registry();
  const theirs = new Registry();
  const counter = new LabeledCounter(ours, { name: 'calls_total', help: 'Calls', labelNames });
  const histogram = new LabeledHistogram(ours, { name: 'call_seconds', help: 'Call time', labelNames, buckets });
  const pCounter = new Counter({ name: 'calls_total', help: 'Calls', labelNames, registers: [theirs] });
  const pHistogram = new Histogram({ name: 'call_seconds', help: 'Call time', labelNames, buckets, registers: [theirs] });
  const record = (labels: Record<(typeof labelNames)[number], string>, seconds: number) => {
    counter.series(labels).inc();
    histogram.series(labels).observe(seconds);
    pCounter.inc(labels);
    pHistogram.observe(labels, seconds);
  };
  return { ours, theirs, counter, histogram, pCounter, pHistogram, record };
}

async function assertSame(ours: Registry, theirs: Registry) {
  assert.equal(await ours.metrics(), await theirs.metrics());
  assert.deepEqual(await ours.getMetricsAsJSON(), await theirs.getMetricsAsJSON());
}

describe('LabeledCounter and LabeledHistogram', () => {
  it('expose exactly what prom-client exposes, as text and as JSON', async () => {
    const p = pair();
    await assertSame(p.ours, p.theirs);
    p.record({ provider: 'a', deployment: 'a/m', outcome: 'success' }, 0.02);
    p.record({ provider: 'b', deployment: 'b/"q"\\\n', outcome: 'timeout' }, 12);
    p.record({ provider: 'a', deployment: 'a/m', outcome: 'success' }, 0.1);
    p.record({ provider: 'a', deployment: 'a/m', outcome: 'server_error' }, 1e-7);
    await assertSame(p.ours, p.theirs);
  });

  it('count on a kept series, and start over after a reset in first-use order', async () => {
    const p = pair();
    const first = { provider: 'a', deployment: 'a/m', outcome: 'success' };
    const second = { provider: 'b', deployment: 'b/m', outcome: 'success' };
    const keptCount = p.counter.series(first);
    const keptLatency = p.histogram.series(first);
    p.record(second, 0.5);
    keptCount.inc(2);
    keptLatency.observe(0.07);
    p.pCounter.inc(first, 2);
    p.pHistogram.observe(first, 0.07);
    await assertSame(p.ours, p.theirs);

    p.ours.resetMetrics();
    p.theirs.resetMetrics();
    await assertSame(p.ours, p.theirs);
    // The kept series lists itself again, after one made since: prom-client's order too.
    p.record(second, 3);
    keptCount.inc();
    keptLatency.observe(0.2);
    p.pCounter.inc(first);
    p.pHistogram.observe(first, 0.2);
    await assertSame(p.ours, p.theirs);
  });
});
