import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Endpoint } from '../../config/catalog.ts';
import type { CancelSignal } from '../../shared/cancel-signal.ts';
import { HttpError } from '../../shared/errors.ts';
import type { Reservation, ServedBy } from '../billing/billing.ts';
import { computeCost, type BillableUsage } from '../billing/cost.ts';
import type { ChargeEstimate } from '../billing/estimate.ts';
import { principalOf } from '../http/principal.ts';
import type { InferenceContext } from '../inference-context.ts';
import type { Executor, ModelRoute } from '../routing/route-model.ts';
import type { RequestBudget } from '../upstream/run-with-fallback.ts';
import type { UpstreamTarget } from '../upstream/upstream-target.ts';
import { abortOnClientClose, type ClientAbort } from './client-abort.ts';

/** What a request is held and billed as. */
export interface HoldTerms {
  readonly route: ModelRoute;
  readonly endpoint: Endpoint;
  readonly charge: ChargeEstimate;
  /**
   * How the client's protocol states a failure, when it differs from the service's error (the
   * messages protocol's 529 for an overloaded upstream): applied before the status is recorded.
   */
  readonly clientError?: ((error: unknown) => unknown) | undefined;
}

export interface Served<T> {
  readonly result: T;
  readonly target: UpstreamTarget;
}

/** The credits held for one request while it is served; see withCreditHold. */
export interface CreditHold {
  /** Aborted (ClientClosedError) when the client's connection closes before its answer is complete. */
  readonly signal: CancelSignal;
  /** Micro-credits actually held (a partial hold when the balance covered less than the estimate). */
  readonly held: bigint;
  /**
   * The most output tokens the hold pays for, when the upstream must be told (a request whose
   * worst case the balance does not cover, or that gave max_tokens): send it as max_tokens.
   */
  readonly maxOutputTokens: number | null;
  /**
   * One upstream call, made resiliently over the route's executors and their deployments
   * (Upstreams.run: balanced, retried, failed over). Once it succeeded, a routed request (pipeline,
   * svc-auto) gets `x-svc-model` (the executing brand) and `x-svc-lane`. What it consumed is billed
   * only once the caller record()s it. Every attempt of the request shares one `max_total_ms`,
   * from the first: a later call gets what is left (504 when nothing is).
   */
  attempt<T>(call: (target: UpstreamTarget, signal: CancelSignal) => Promise<T>): Promise<Served<T>>;
  /** Adds what one upstream call consumed to the request's bill (a request may make several). */
  record(usage: BillableUsage, estimated: boolean, target: UpstreamTarget): void;
  /** The sum of what was recorded so far. */
  usage(): BillableUsage;
  /**
   * Ends the reservation now: charges what was recorded, or releases the hold when nothing was;
   * later calls, and the end withCreditHold would make, do nothing. The hold goes back to the
   * lease at once; the charge and usage record are written behind (group commit), not awaited.
   */
  finish(status: number): void;
}

function loggedByBilling(): void {}

/** The status a failed request answered (or would have, for a client that left). */
export function failureStatus(error: unknown): number {
  return error instanceof HttpError ? error.status : 500;
}

function servedByOf(target: UpstreamTarget | null): ServedBy | null {
  return target ? { providerId: target.deployment.provider.id, upstreamModel: target.deployment.model } : null;
}

function add(a: BillableUsage, b: BillableUsage): BillableUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    cachedInputTokens: (a.cachedInputTokens ?? 0) + (b.cachedInputTokens ?? 0),
    outputTokens: (a.outputTokens ?? 0) + (b.outputTokens ?? 0),
    images: (a.images ?? 0) + (b.images ?? 0),
  };
}

/** The executor of the route that a target belongs to. */
export function executorOf(route: ModelRoute, target: UpstreamTarget): Executor {
  return route.executors.find((e) => e.upstreamModel === target.model) ?? route.executors[0]!;
}

/**
 * The answer's `model` once a target served: the billed brand (the requested one, svc-auto's
 * choice), or for a caller's fallback list the model of the list that served.
 */
export function answeredModel(route: ModelRoute, target: UpstreamTarget): string {
  return route.fallbackList ? (executorOf(route, target).billedAs ?? route.billed).id : route.billed.id;
}

/**
 * The one lifecycle of a billed request, for every route, streamed or not: hold credits (402 when
 * the balance cannot cover the minimum), serve with the hold, then end the reservation exactly
 * once, charging the usage of every upstream call recorded (at the billed brand's prices: the
 * requested one, or svc-auto's choice) or releasing the hold when none was. A throw from `serve`
 * ends it with the error's status and is rethrown; a billing failure on that path is logged,
 * never hiding the original error. The executing brand of a pipeline or svc-auto goes on the
 * usage record as its served model.
 */
export async function withCreditHold<T>(
  ctx: InferenceContext,
  request: FastifyRequest,
  reply: FastifyReply,
  terms: HoldTerms,
  serve: (hold: CreditHold) => Promise<T>,
): Promise<T> {
  const reservation = await ctx.billing.reserve({
    principal: principalOf(request),
    model: terms.route.requested,
    endpoint: terms.endpoint,
    requestId: request.id,
    charge: terms.charge,
  });
  const hold = new RequestHold(ctx, request, reply, terms.route, reservation);
  let result: T;
  try {
    result = await serve(hold);
  } catch (e) {
    const error = terms.clientError ? terms.clientError(e) : e;
    hold.finish(failureStatus(error));
    throw error;
  }
  hold.finish(200);
  return result;
}

/**
 * A request's hold while it is served (withCreditHold): one object rather than a closure per
 * method, a request's garbage being a visible share of its CPU (docs/bench-gateway.md,
 * "Session 8").
 */
class RequestHold implements CreditHold, RequestBudget {
  readonly signal: CancelSignal;
  readonly maxOutputTokens: number | null;
  readonly held: bigint;
  private readonly abort: ClientAbort;
  /**
   * The request's time budget (RequestBudget): `max_total_ms` is the request's, whatever number of
   * calls it makes (a response's tool rounds). A field here, not an object of its own per request.
   */
  startedAt: number | null = null;
  private lastTarget: UpstreamTarget | null = null;
  /** The lane of the executor whose answer the client got (x-svc-lane); null until one answered. */
  private answeredLane: string | null = null;
  private recorded: BillableUsage | null = null;
  private estimated = false;
  private done = false;
  /** The cost of what was recorded, kept only for a caller's fallback list (priced per call). */
  private cost = 0n;

  constructor(
    private readonly ctx: InferenceContext,
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
    private readonly route: ModelRoute,
    private readonly reservation: Reservation,
  ) {
    this.abort = abortOnClientClose(reply);
    this.signal = this.abort.signal;
    this.maxOutputTokens = reservation.maxOutputTokens;
    this.held = reservation.amount;
  }

  async attempt<R>(call: (target: UpstreamTarget, signal: CancelSignal) => Promise<R>): Promise<Served<R>> {
    const { route, signal } = this;
    const served = await this.ctx.upstreams.run(
      route.executors.map((e) => e.upstreamModel),
      (target, attemptSignal) => {
        this.lastTarget = target;
        // The attempt's signal also ends the call when the request's time budget runs out.
        return call(target, attemptSignal ?? signal);
      },
      signal,
      this,
    );
    if (route.lane !== null || route.fallbackList) {
      const executor = executorOf(route, served.target);
      void this.reply.header('x-svc-model', executor.brand.id);
      const lane = executor.lane ?? route.lane;
      this.answeredLane = lane;
      if (lane !== null) void this.reply.header('x-svc-lane', lane);
    }
    return served;
  }

  record(usage: BillableUsage, wasEstimated: boolean, target: UpstreamTarget): void {
    this.recorded = this.recorded === null ? add({ inputTokens: 0 }, usage) : add(this.recorded, usage);
    // A caller's fallback list: each call at the prices of the list's model that made it.
    if (this.route.fallbackList) this.cost += computeCost((executorOf(this.route, target).billedAs ?? this.route.billed).pricing, usage);
    this.estimated ||= wasEstimated;
    this.lastTarget = target;
  }

  usage(): BillableUsage {
    return this.recorded ?? { inputTokens: 0 };
  }

  finish(status: number): void {
    if (this.done) return;
    this.done = true;
    this.abort.dispose();
    const { route, lastTarget, recorded, ctx, reservation } = this;
    const servedBy = servedByOf(lastTarget);
    const served = lastTarget ? executorOf(route, lastTarget) : route.executors[0]!;
    const executor = served.brand;
    const servedModel = executor === route.requested ? null : executor.id;
    // The lane the executor that answered was listed under (as x-svc-lane says); when none answered,
    // the request's own: the lane of the last executor tried says only how far the chain went.
    const lane = this.answeredLane ?? route.lane;
    const pricing = route.billed === route.requested || route.fallbackList ? undefined : route.billed.pricing;
    // The answer does not wait for the write: a failed write is logged (the request then goes
    // unbilled, its hold back in the lease), never turned into the client's error.
    const written =
      recorded === null && status >= 400
        ? ctx.billing.release(reservation, { status, servedBy, servedModel, lane })
        : ctx.billing.settle(reservation, {
            usage: recorded ?? { inputTokens: 0 },
            usageSource: this.estimated ? 'estimated' : 'upstream',
            status,
            servedBy,
            servedModel,
            lane,
            // A fallback list has no one price: its calls were priced as they were recorded.
            ...(pricing ? { pricing } : route.fallbackList ? { cost: this.cost } : {}),
          });
    // Billing logs a failed write with the request id. The write waits for its group commit (tens
    // of milliseconds), and whatever a callback here kept alive until then (the hold, with the
    // request, reply and answer) V8 would promote out of its young generation, a visible share of
    // a request's CPU (docs/bench-gateway.md, "Session 9"): nothing is kept.
    written.catch(loggedByBilling);
  }
}

export interface BilledCall<T> extends HoldTerms {
  readonly ctx: InferenceContext;
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
  /** One attempt on one deployment; the signal aborts when the client leaves or the request's time budget runs out before the answer starts. */
  readonly call: (target: UpstreamTarget, signal: CancelSignal) => Promise<T>;
  /** What the answer consumed, and whether it was counted here rather than reported. */
  readonly usageOf: (result: T) => { readonly usage: BillableUsage; readonly estimated: boolean };
}

/** A non-streamed request of one upstream call: held, tried on the deployments, billed from its usage. */
export async function billedCall<T>(c: BilledCall<T>): Promise<Served<T>> {
  return withCreditHold(c.ctx, c.request, c.reply, c, async (hold) => {
    const served = await hold.attempt(c.call);
    const { usage, estimated } = c.usageOf(served.result);
    hold.record(usage, estimated, served.target);
    return served;
  });
}
