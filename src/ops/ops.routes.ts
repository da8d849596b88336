import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { ReadinessReport } from './readiness.ts';

export interface OpsRoutesOptions {
  readonly ready: () => Promise<ReadinessReport>;
  readonly registry: Registry;
}

export async function opsRoutes(app: FastifyInstance, opts: OpsRoutesOptions): Promise<void> {
  const tags = ['operations'];
  app.get('/healthz', { schema: { tags, summary: 'The process is up' } }, async () => ({ status: 'ok' }));
  app.get(
    '/readyz',
    { schema: { tags, summary: 'Each dependency a request needs: database, Redis when configured, upstreams per model family' } },
    async (_req, reply) => {
      const report = await opts.ready();
      if (report.status !== 'ready') void reply.code(503).header('retry-after', '5');
      return report;
    },
  );
  app.get('/metrics', { schema: { tags, summary: 'Prometheus metrics' } }, async (_req, reply) => {
    const body = await opts.registry.metrics();
    return reply.type(opts.registry.contentType).send(body);
  });
}
