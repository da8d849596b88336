import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { Catalog } from '../../config/catalog.ts';
import type { DeploymentHealth, DeploymentStatus, FailureClass } from '../upstream/deployment-health.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

const UpstreamView = Type.Object({
  deployment: Type.String(),
  provider: Type.String(),
  upstream_model: Type.String(),
  models: Type.Array(Type.String()),
  configured: Type.Boolean(),
  health: Type.String(),
  breaker: Type.String(),
  in_flight: Type.Integer(),
  consecutive_failures: Type.Integer(),
  window: Type.Object({ calls: Type.Integer(), failures: Type.Integer() }),
  open_until: Nullable(Type.String()),
  last_failure: Nullable(Type.Object({ class: Type.String(), at: Type.String() })),
  last_success_at: Nullable(Type.String()),
  totals: Type.Object({ calls: Type.Integer(), failures: Type.Integer() }),
});

const FAILURE_WORDS: Record<FailureClass, string> = {
  connection: 'could not be reached',
  timeout: 'timed out',
  rate_limited: 'rate limited the service (429)',
  server_error: 'answered with a server error',
  refused: 'refused the service credentials or model (401/403/404)',
};

const iso = (ms: number) => new Date(ms).toISOString();

/** A deployment's health in words an operator reads. */
export function describeHealth(s: DeploymentStatus): string {
  if (!s.deployment.provider.configured) return 'not configured: its base URL or API key is not set; the models it serves use their other deployments';
  const last = s.lastFailure ? `last failure: ${FAILURE_WORDS[s.lastFailure.outcome]} at ${iso(s.lastFailure.at)}` : null;
  if (s.state === 'open') {
    const who = s.openedElsewhere ? 'another instance opened its breaker' : `its breaker opened after repeated failures (${last ?? 'no detail'})`;
    return `down: ${who}; no requests go to it until ${iso(s.openUntil!)}, then one probe request decides`;
  }
  if (s.state === 'half_open') return 'recovering: the cooldown is over; the next request is a probe that closes the breaker if it succeeds';
  if (s.windowFailures > 0) return `degraded: ${s.windowFailures} of ${s.windowCalls} recent requests failed; ${last}`;
  if (s.totals.calls === 0) return 'healthy: no requests yet';
  return `healthy: ${s.windowCalls} recent requests, none failed`;
}

export interface UpstreamsAdminOptions {
  readonly catalog: Catalog;
  readonly health: DeploymentHealth;
}

/** GET /admin/upstreams: every deployment, its breaker and its health in words. */
export function upstreamsAdminRoutes(opts: UpstreamsAdminOptions): FastifyPluginAsync {
  const modelsOf = new Map<string, string[]>();
  for (const m of opts.catalog.models.values()) {
    for (const d of m.deployments) modelsOf.set(d.key, [...(modelsOf.get(d.key) ?? []), m.id]);
  }
  return async (app: FastifyInstance) => {
    app.get(
      '/upstreams',
      {
        schema: {
          tags: ['admin: upstreams'],
          security: [{ bearer: [] }],
          summary: "Every upstream deployment with its circuit breaker, load and health",
          response: { 200: Type.Object({ data: Type.Array(UpstreamView) }) },
        },
      },
      async () => ({
        data: opts.health.snapshot().map((s) => ({
          deployment: s.deployment.key,
          provider: s.deployment.provider.id,
          upstream_model: s.deployment.model,
          models: modelsOf.get(s.deployment.key) ?? [],
          configured: s.deployment.provider.configured,
          health: describeHealth(s),
          breaker: s.state,
          in_flight: s.inFlight,
          consecutive_failures: s.consecutiveFailures,
          window: { calls: s.windowCalls, failures: s.windowFailures },
          open_until: s.openUntil === null ? null : iso(s.openUntil),
          last_failure: s.lastFailure ? { class: s.lastFailure.outcome, at: iso(s.lastFailure.at) } : null,
          last_success_at: s.lastSuccessAt === null ? null : iso(s.lastSuccessAt),
          totals: s.totals,
        })),
      }),
    );
  };
}
