import type { FastifyInstance } from 'fastify';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { RequestMetrics } from './request-metrics.ts';

export interface HttpMetrics {
  readonly registry: Registry;
}

export const REQUEST_METRIC_NAMES = {
  counter: 'http_requests_total',
  counterHelp: 'HTTP requests by method, route pattern and status',
  histogram: 'http_request_duration_seconds',
  histogramHelp: 'HTTP request latency by method, route pattern and status',
} as const;

export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Requests by route and status, and a latency histogram; one registry per app instance. */
export function installMetrics(app: FastifyInstance, opts: { defaultMetrics: boolean }): HttpMetrics {
  const registry = new Registry();
  if (opts.defaultMetrics) collectDefaultMetrics({ register: registry });
  const requests = new RequestMetrics(registry, REQUEST_METRIC_NAMES, LATENCY_BUCKETS);
  app.addHook('onResponse', (request, reply, done) => {
    requests.record(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  return { registry };
}
