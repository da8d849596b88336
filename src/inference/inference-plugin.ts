import type { FastifyInstance } from 'fastify';
import { allowCrossOrigin } from '../http/cors.ts';
import type { InferenceContext } from './inference-context.ts';

/** A group of inference routes; it is mounted under both /v1 and /inference/v1. */
export type InferenceRoutes = (app: FastifyInstance, ctx: InferenceContext) => Promise<void>;

export interface InferencePluginOptions {
  readonly context: InferenceContext;
  readonly routes: readonly InferenceRoutes[];
}

/**
 * The inference surface. app.ts registers it twice, at /v1 and at /inference/v1 (the base the
 * messages SDKs use), with the same routes; each route mounts its own checks from the context.
 */
export async function inferencePlugin(app: FastifyInstance, opts: InferencePluginOptions): Promise<void> {
  // Before the routes' key checks: a preflight carries no key.
  await allowCrossOrigin(app);
  if (opts.context.catalog.demo) {
    // Every answer of the built-in demo provider is marked, whatever the route.
    app.addHook('onRequest', async (_request, reply) => {
      void reply.header('x-svc-demo', 'true');
    });
  }
  for (const routes of opts.routes) await app.register(async (child) => routes(child, opts.context));
}
