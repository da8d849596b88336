import type { Principal } from '../../accounts/principal.ts';
import type { Endpoint, ModelConfig, ModelPricing } from '../../config/catalog.ts';
import type { Clock } from '../../shared/clock.ts';
import { HttpError } from '../../shared/errors.ts';
import type { Db } from '../../storage/database.ts';
import { computeCost, type BillableUsage } from './cost.ts';
import { createBatchWriter } from './batch-writes.ts';
import { holdCredits, holdCreditsMany, settleCharge, settleChargesMany, type HoldInput, type SettledCharge, type SettleInput as SettleWrite } from './credits.repository.ts';
import type { ChargeEstimate } from './estimate.ts';

export const OUT_OF_CREDITS = 'out of credits - please top up at the dashboard';

/** The internal deployment that served a request; recorded, never shown to clients. */
export interface ServedBy {
  readonly providerId: string;
  readonly upstreamModel: string;
}

export interface ReserveInput {
  readonly principal: Principal;
  /** The brand model asked for; its prices apply unless settle() says otherwise. */
  readonly model: ModelConfig;
  readonly endpoint: Endpoint;
  readonly requestId: string;
  readonly charge: ChargeEstimate;
}

/** Credits held for one request. Settle or release it exactly once. */
export interface Reservation {
  readonly accountId: number;
  readonly keyId: number;
  readonly model: ModelConfig;
  readonly endpoint: Endpoint;
  readonly requestId: string;
  /** Micro-credits held (may be less than the estimate, see estimateCharge). */
  readonly amount: bigint;
  readonly startedAt: number;
}

export interface SettleInput {
  readonly usage: BillableUsage;
  /** upstream: the upstream's usage report; estimated: counted here (a stream without usage). */
  readonly usageSource: 'upstream' | 'estimated';
  /** The HTTP status the client got; 200 by default. */
  readonly status?: number;
  readonly servedBy?: ServedBy | null;
  /** The brand that answered when it is not the one asked for (pipelines, svc-auto). */
  readonly servedModel?: string | null;
  /** Prices to bill at, when not the reserved model's (svc-auto bills the model it chose). */
  readonly pricing?: ModelPricing;
  /** Defaults to the time since reserve(). */
  readonly latencyMs?: number;
}

export interface ReleaseInput {
  /** The HTTP status the client got (4xx/5xx). */
  readonly status: number;
  readonly servedBy?: ServedBy | null;
  readonly servedModel?: string | null;
  readonly latencyMs?: number;
}

export type Settlement = SettledCharge;

export interface Billing {
  /** Holds credits for a request, or throws 402 `out of credits - please top up at the dashboard`. */
  reserve(input: ReserveInput): Promise<Reservation>;
  /** Charges the real cost and records usage, releasing the hold, in one transaction. */
  settle(reservation: Reservation, input: SettleInput): Promise<Settlement>;
  /** A failed request: releases the hold, charges nothing, records the status. */
  release(reservation: Reservation, input: ReleaseInput): Promise<Settlement>;
}

interface Held extends Reservation {
  readonly holdId: bigint | null;
}

// Reservations not yet settled or released, whichever Billing made them: a second settle of
// the same reservation would charge twice.
const open = new WeakSet<Reservation>();

export function createBilling(db: Db, clock: Clock): Billing {
  // Concurrent requests' holds and settlements are written in batches (group commit); each
  // request still waits for its own write, so the semantics are those of one write per request.
  const hold = createBatchWriter<HoldInput, Awaited<ReturnType<typeof holdCredits>>>({
    single: (i) => holdCredits(db, i),
    many: (is) => holdCreditsMany(db, is),
  });
  const settleWrite = createBatchWriter<SettleWrite, SettledCharge>({
    single: (i) => settleCharge(db, i.reservationId, i.usage),
    many: (is) => settleChargesMany(db, is),
  });
  const close = (r: Reservation): Held => {
    if (!open.has(r)) throw new Error(`reservation of request ${r.requestId} was already settled`);
    open.delete(r);
    return r as Held;
  };

  const finish = (r: Held, s: {
    usage: BillableUsage;
    cost: bigint;
    usageSource: 'upstream' | 'estimated' | null;
    status: number;
    servedBy: ServedBy | null | undefined;
    servedModel: string | null | undefined;
    latencyMs: number | undefined;
  }) =>
    settleWrite({ reservationId: r.holdId, usage: {
      accountId: r.accountId,
      keyId: r.keyId,
      model: r.model.id,
      servedModel: s.servedModel ?? null,
      providerId: s.servedBy?.providerId ?? null,
      upstreamModel: s.servedBy?.upstreamModel ?? null,
      endpoint: r.endpoint,
      inputTokens: s.usage.inputTokens,
      cachedInputTokens: Math.min(s.usage.cachedInputTokens ?? 0, s.usage.inputTokens),
      outputTokens: s.usage.outputTokens ?? 0,
      imageCount: s.usage.images ?? 0,
      cost: s.cost,
      latencyMs: Math.max(0, Math.round(s.latencyMs ?? clock.now() - r.startedAt)),
      status: s.status,
      usageSource: s.usageSource,
      requestId: r.requestId,
    } });

  return {
    async reserve(input) {
      const held = await hold({
        accountId: input.principal.accountId,
        estimate: input.charge.estimate,
        minimum: input.charge.minimum,
        requestId: input.requestId,
      });
      if (!held) throw new HttpError(402, OUT_OF_CREDITS);
      const r: Held = {
        accountId: input.principal.accountId,
        keyId: input.principal.keyId,
        model: input.model,
        endpoint: input.endpoint,
        requestId: input.requestId,
        amount: held.amount,
        startedAt: clock.now(),
        holdId: held.id,
      };
      open.add(r);
      return r;
    },

    async settle(reservation, input) {
      const r = close(reservation);
      const cost = computeCost(input.pricing ?? r.model.pricing, input.usage);
      return finish(r, {
        usage: input.usage,
        cost,
        usageSource: input.usageSource,
        status: input.status ?? 200,
        servedBy: input.servedBy,
        servedModel: input.servedModel,
        latencyMs: input.latencyMs,
      });
    },

    async release(reservation, input) {
      const r = close(reservation);
      return finish(r, {
        usage: { inputTokens: 0 },
        cost: 0n,
        usageSource: null,
        status: input.status,
        servedBy: input.servedBy,
        servedModel: input.servedModel,
        latencyMs: input.latencyMs,
      });
    },
  };
}
