import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Endpoint } from '../../config/catalog.ts';
import type { BillableUsage } from '../billing/cost.ts';
import type { ChargeEstimate } from '../billing/estimate.ts';
import { principalOf } from '../http/principal.ts';
import type { InferenceContext } from '../inference-context.ts';
import type { ModelRoute } from '../routing/route-model.ts';
import type { UpstreamTarget } from '../upstream/create-upstreams.ts';
import { tryDeployments } from '../upstream/try-deployments.ts';
import { abortOnClientClose } from './client-abort.ts';
import { failureStatus, releaseQuietly, settleOnce } from './settlement.ts';

/** Headers of a pipeline's answer: the brand that served it and its lane (docs/inference-endpoints.md). */
export function announceRoute(reply: FastifyReply, route: ModelRoute): void {
  if (route.lane === null) return;
  void reply.header('x-svc-model', route.served.id);
  void reply.header('x-svc-lane', route.lane);
}

export interface BilledCall<T> {
  readonly ctx: InferenceContext;
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
  readonly route: ModelRoute;
  readonly endpoint: Endpoint;
  readonly charge: ChargeEstimate;
  /** One attempt on one deployment; the signal aborts when the client leaves. */
  readonly call: (target: UpstreamTarget, signal: AbortSignal) => Promise<T>;
  /** What the answer consumed, and whether it was counted here rather than reported. */
  readonly usageOf: (result: T) => { readonly usage: BillableUsage; readonly estimated: boolean };
}

/**
 * A non-streamed upstream call with its billing: reserve (402), try the served model's deployments
 * in order (the next one only after a retryable failure), then charge the reported usage, or
 * release the hold when every attempt failed or the client left. The reservation ends exactly once.
 */
export async function billedCall<T>(c: BilledCall<T>): Promise<{ readonly result: T; readonly target: UpstreamTarget }> {
  const reservation = await c.ctx.billing.reserve({
    principal: principalOf(c.request),
    model: c.route.requested,
    endpoint: c.endpoint,
    requestId: c.request.id,
    charge: c.charge,
  });
  const settle = settleOnce(c.ctx.billing, reservation, c.route);
  const abort = abortOnClientClose(c.reply);
  let tried: UpstreamTarget | null = null;
  let served: { result: T; target: UpstreamTarget };
  try {
    served = await tryDeployments(c.route.upstreamModel, (target) => {
      tried = target;
      return c.call(target, abort.signal);
    });
  } catch (e) {
    await releaseQuietly(settle, failureStatus(e), tried, c.request.log);
    throw e;
  } finally {
    abort.dispose();
  }
  const { usage, estimated } = c.usageOf(served.result);
  await settle.charge({ usage, estimated, target: served.target });
  return served;
}
