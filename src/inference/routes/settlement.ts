import type { FastifyBaseLogger } from 'fastify';
import type { Billing, Reservation, ServedBy, Settlement } from '../billing/billing.ts';
import type { BillableUsage } from '../billing/cost.ts';
import type { ModelRoute } from '../routing/route-model.ts';
import type { UpstreamTarget } from '../upstream/create-upstreams.ts';
import { HttpError } from '../../shared/errors.ts';

/** The deployment that served (or last tried) a request, for the usage record. */
export function servedByOf(target: UpstreamTarget | null): ServedBy | null {
  return target ? { providerId: target.deployment.provider.id, upstreamModel: target.deployment.model } : null;
}

/** The status a failed request answered (or would have, for a client that left). */
export function failureStatus(error: unknown): number {
  return error instanceof HttpError ? error.status : 500;
}

export interface Settle {
  /** Charges what the upstream produced and records it; returns null when already done. */
  charge(input: { usage: BillableUsage; estimated: boolean; status?: number; target: UpstreamTarget | null }): Promise<Settlement | null>;
  /** Gives the hold back and records the failure; returns null when already done. */
  release(input: { status: number; target: UpstreamTarget | null }): Promise<Settlement | null>;
}

/**
 * One reservation's single ending. A request can reach several exits (an error, a client that
 * left, a stream that ended); whichever comes first settles or releases, the others do nothing,
 * so a reservation is never charged twice nor left open. The served model of a pipeline goes on
 * the usage record; prices are the requested brand's (the reservation's model).
 */
export function settleOnce(billing: Billing, reservation: Reservation, route: ModelRoute): Settle {
  let done = false;
  const servedModel = route.served === route.requested ? null : route.served.id;
  return {
    async charge({ usage, estimated, status, target }) {
      if (done) return null;
      done = true;
      return billing.settle(reservation, {
        usage,
        usageSource: estimated ? 'estimated' : 'upstream',
        status: status ?? 200,
        servedBy: servedByOf(target),
        servedModel,
      });
    },
    async release({ status, target }) {
      if (done) return null;
      done = true;
      return billing.release(reservation, { status, servedBy: servedByOf(target), servedModel });
    },
  };
}

/** Releases after a failure without hiding the failure: a billing error is logged, the original rethrown by the caller. */
export async function releaseQuietly(settle: Settle, status: number, target: UpstreamTarget | null, log: FastifyBaseLogger): Promise<void> {
  try {
    await settle.release({ status, target });
  } catch (e) {
    log.error({ err: e }, 'releasing a credit hold failed; the stale-hold sweep will return it');
  }
}
