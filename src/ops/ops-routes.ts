import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';

export interface OpsRoutesOptions {
  readonly ready: () => Promise<void>;
  readonly registry: Registry;
}

export async function opsRoutes(app: FastifyInstance, opts: OpsRoutesOptions): Promise<void> {
  const tags = ['operations'];
  app.get('/healthz', { schema: { tags, summary: 'The process is up' } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { tags, summary: 'The database answers' } }, async (_req, reply) => {
    try {
      await opts.ready();
      return { status: 'ready' };
    } catch (e) {
      return reply.code(503).send({ error: `database unavailable: ${(e as Error).message}` });
    }
  });
  app.get('/metrics', { schema: { tags, summary: 'Prometheus metrics' } }, async (_req, reply) => {
    const body = await opts.registry.metrics();
    return reply.type(opts.registry.contentType).send(body);
  });
}
