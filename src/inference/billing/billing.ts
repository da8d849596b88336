import { randomUUID } from 'node:crypto';
import type { Principal } from '../../accounts/principal.ts';
import type { Endpoint, ModelConfig, ModelPricing } from '../../config/catalog.ts';
import type { Clock } from '../../shared/clock.ts';
import { HttpError } from '../../shared/errors.ts';
import type { Logger } from '../../shared/logger.ts';
import type { Db } from '../../storage/database.ts';
import { createBatchWriter } from '../../storage/batch-writes.ts';
import { computeCost, type BillableUsage } from './cost.ts';
import { releaseStaleHolds, renewLeases, returnLease, settleCharges, takeLease, type SettledCharge, type SettleItem } from './credits.repository.ts';
import { availableCredits } from '../../accounts/available-credits.ts';
import { holdAmount, outputTokensCovered, type ChargeEstimate } from './estimate.ts';

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
  /** Micro-credits held: the most the request will be charged (see holdAmount). */
  readonly amount: bigint;
  /**
   * Chat: the most output tokens the hold pays for, which the upstream must be asked for no more
   * than (max_tokens). Null when there is no cap to send: no output part, or a request without
   * max_tokens whose hold covers the model's whole max output.
   */
  readonly maxOutputTokens: number | null;
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
  /** The lane the request was routed by (pipelines, svc-auto). */
  readonly lane?: string | null;
  /** Prices to bill at, when not the reserved model's (svc-auto bills the model it chose). */
  readonly pricing?: ModelPricing;
  /**
   * The cost itself, when the request's calls were priced apart (a caller's fallback list: each
   * call at the prices of the model that made it); `pricing` is then not used.
   */
  readonly cost?: bigint;
  /** Defaults to the time since reserve(). */
  readonly latencyMs?: number;
}

export interface ReleaseInput {
  /** The HTTP status the client got (4xx/5xx). */
  readonly status: number;
  readonly servedBy?: ServedBy | null;
  readonly servedModel?: string | null;
  readonly lane?: string | null;
  readonly latencyMs?: number;
}

export type Settlement = SettledCharge;

export interface Billing {
  /**
   * Holds credits for a request, or throws 402 `out of credits - please top up at the dashboard`.
   * In the steady state no database work: the hold comes out of this instance's lease. A request
   * that finds less than its minimum while requests of the same account are in flight here, whose
   * holds could cover it, waits for them to give credits back (at most `holdWaitMs`) before 402.
   */
  reserve(input: ReserveInput): Promise<Reservation>;
  /**
   * Charges the real cost, capped at the hold (the rest is the operator's cost), and records
   * usage. The hold is given back at once; the write is batched behind: the promise resolves
   * when it committed, and nobody on a request's path needs to wait for it.
   */
  settle(reservation: Reservation, input: SettleInput): Promise<Settlement>;
  /** A failed request: gives the hold back, charges nothing, records the status (written behind). */
  release(reservation: Reservation, input: ReleaseInput): Promise<Settlement>;
  /**
   * Writes the charges queued on this instance now, and waits for lease writes in flight (idle
   * leases going back too): a read of balances or usage records that follows shows every answer
   * this instance sent before it (read your own writes), and no lease of this instance counted
   * twice.
   */
  written(): Promise<void>;
  /** Requests waiting, now, for the holds in flight of their account to give credits back. */
  waiting(): number;
  /**
   * The part of this instance's lease of the account that no request holds and no queued charge
   * takes (micro-credits, 0 without a lease): counted in `accounts.reserved`, yet free for the
   * account's next requests here. A balance shown to its owner adds it back.
   */
  unheld(accountId: number): bigint;
  /**
   * The account's balance row, read by `read` after written(), and what the account may spend now
   * (availableCredits). This instance's lease of the account is kept from the idle return while
   * `read` runs, so the row's `reserved` and the lease's unheld part describe one state: a return
   * committing between the two counted the lease as another instance's hold (available 0).
   */
  balance<T extends { readonly credits: bigint; readonly reserved: bigint }>(accountId: number, read: () => Promise<T>): Promise<{ account: T; available: bigint }>;
  /**
   * Waits for the holds of requests in flight to be settled (their connections are closed by
   * then: at most SHUTDOWN_SETTLE_MS), writes every queued charge and returns every lease's
   * unheld credits (shutdown). Requests waiting for credits are answered 503 at once.
   */
  close(): Promise<void>;
}

export interface BillingOptions {
  readonly logger?: Logger;
  /** Delay of the group commit of charges (the crash window of usage records). */
  readonly flushMs?: number;
  /** A lease with no request for this long goes back to the account. */
  readonly leaseIdleMs?: number;
  /** How often an instance marks its leases alive. */
  readonly renewEveryMs?: number;
  /** A lease not renewed for this long belongs to a dead instance: the sweep releases it. */
  readonly staleAfterMs?: number;
  /** Release every lease at start: this process is the database's only user (embedded). */
  readonly releaseAllAtStart?: boolean;
  /**
   * The longest a request that finds less than its minimum waits for the holds in flight of its
   * account to give credits back before it is refused (0: refused at once).
   */
  readonly holdWaitMs?: number;
}

export const BILLING_DEFAULTS = {
  flushMs: 50,
  leaseIdleMs: 5_000,
  renewEveryMs: 10_000,
  staleAfterMs: 60_000,
  holdWaitMs: 30_000,
} as const;

/**
 * This instance's lease on one account. Local available = `db - pending - held`: what the
 * lease row holds, less the charges queued for writing (still in the row) and the holds of the
 * requests in flight.
 */
interface Lease {
  readonly accountId: number;
  id: bigint | null;
  db: bigint;
  pending: bigint;
  held: bigint;
  /**
   * Requests inside hold() on this lease (taking, or waiting for, credits), and balance reads: the
   * idle return must not drop a lease they will hold from (their holds would go to a row nothing
   * ever gives back), nor one a balance read counts as this instance's.
   */
  reserving: number;
  /** How much to keep free locally: grows with the holds in flight, so renewals stay rare. */
  target: bigint;
  /** The account's available balance outside all leases, at the last lease write. */
  outside: bigint;
  /** What other live instances' leases of the account held, at the last lease write. */
  elsewhere: bigint;
  lastUsed: number;
  /** Trusted until then: a lease not renewed in time may be swept by another instance. */
  validUntil: number;
  taking: Promise<boolean> | null;
  /** Resolved (and cleared) when the lease's free part may have grown: a hold given back, a write. */
  freed: { readonly promise: Promise<void>; readonly resolve: () => void } | null;
}

interface Held extends Reservation {
  readonly lease: Lease;
  readonly leaseId: bigint | null;
}

// Reservations not yet settled or released, whichever Billing made them: a second settle of
// the same reservation would charge twice.
const open = new WeakSet<Reservation>();

const LEASE_AHEAD = 4n;
/** The longest close() waits for the holds of requests in flight to be settled. */
const SHUTDOWN_SETTLE_MS = 5_000;
/** How often a request waiting for credits other instances lease asks the account again: doubling. */
const ELSEWHERE_POLL_MIN_MS = 50;
const ELSEWHERE_POLL_MAX_MS = 1000;
/**
 * A bound on one request's own lease writes. Each takes at least what the request lacks from
 * the account's balance outside the leases (or finds it empty, which ends the loop), so the bound
 * only matters when other instances keep returning credits; it is not reached otherwise.
 */
const MAX_OWN_GROWS = 8;
const min = (a: bigint, b: bigint) => (a < b ? a : b);
const max = (a: bigint, b: bigint) => (a > b ? a : b);

/** The max_tokens the upstream must get: null when the request's own allowance is covered. */
function capOf(charge: ChargeEstimate, held: bigint): number | null {
  const covered = outputTokensCovered(charge, held);
  if (covered === null || !charge.output) return null;
  return charge.output.open && covered >= charge.output.maxTokens ? null : covered;
}

/**
 * Billing on credit leases (docs/decisions-accounts.md, "Credit leases"): holds are taken in
 * memory out of a per-account lease that this instance took from the account's balance in the
 * database (one write per lease, not per request); charges, usage records and ledger rows are
 * written behind the answers in group commits. Charges never exceed holds, holds never exceed
 * leases, leases never exceed the balance: an account's balance never goes below zero.
 */
export function createBilling(db: Db, clock: Clock, opts: BillingOptions = {}): Billing {
  const cfg = { ...BILLING_DEFAULTS, ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)) } as Required<BillingOptions>;
  const instanceId = randomUUID();
  const leases = new Map<number, Lease>();
  let closed = false;
  /** Reservations made here not yet settled or released, and close()'s wait for none. */
  let holding = 0;
  let holdsSettled: (() => void) | null = null;
  let endShutdownWaits!: () => void;
  /** Resolved at close(): requests waiting for other instances' credits are answered at once. */
  const shutdown = new Promise<void>((r) => (endShutdownWaits = r));

  const write = createBatchWriter<SettleItem, SettledCharge>({
    single: async (i) => (await settleCharges(db, [i]))[0]!,
    many: (is) => settleCharges(db, is),
    delayMs: cfg.flushMs,
  });

  const free = (l: Lease) => l.db - l.pending - l.held;

  /** Wakes the requests waiting on the lease: its free part may have grown. */
  const wake = (l: Lease) => {
    const f = l.freed;
    l.freed = null;
    f?.resolve();
  };
  let waiting = 0;

  /** Resolves when the lease's free part may have grown (or at shutdown), or at `deadline`. */
  const freedOrDeadline = async (l: Lease, deadline: Promise<void>): Promise<void> => {
    if (!l.freed) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      l.freed = { promise, resolve };
    }
    waiting++;
    try {
      await Promise.race([l.freed.promise, deadline]);
    } finally {
      waiting--;
    }
  };

  /** Resolves after `ms` (or at shutdown, or at `deadline`): a wait for other instances' credits. */
  const elsewhereOrDeadline = async (ms: number, deadline: Promise<void>): Promise<void> => {
    let t: NodeJS.Timeout | undefined;
    waiting++;
    try {
      await Promise.race([new Promise<void>((r) => (t = setTimeout(r, ms))), deadline, shutdown]);
    } finally {
      clearTimeout(t);
      waiting--;
    }
  };

  const leaseOf = (accountId: number): Lease => {
    let l = leases.get(accountId);
    if (!l) {
      l = { accountId, id: null, db: 0n, pending: 0n, held: 0n, reserving: 0, target: 0n, outside: 0n, elsewhere: 0n, lastUsed: clock.now(), validUntil: 0, taking: null, freed: null };
      leases.set(accountId, l);
    }
    return l;
  };

  /**
   * Adds up to `want` to the lease (one statement); concurrent callers share one write.
   * Resolves false when the account had nothing (or less than `minimum`) left to lease.
   */
  const grow = (l: Lease, want: bigint, minimum: bigint): Promise<boolean> => {
    if (l.taking) return l.taking;
    const p = takeLease(db, { accountId: l.accountId, instanceId, leaseId: l.id, want, minimum, renewedWithinMs: cfg.renewEveryMs * 2 })
      .then(({ taken: t, elsewhere }) => {
        l.elsewhere = elsewhere;
        if (!t) {
          l.outside = 0n;
          return false;
        }
        if (!t.grown) {
          // The old row was swept (this instance could not renew it in time): its queued
          // charges are written without a lease; the new row holds only what was just granted.
          // Its holds and queued charges stay counted in `db` until they end (finish), which
          // takes them out again, so they never become free here.
          l.db = l.pending + l.held;
        }
        l.id = t.leaseId;
        l.db += t.granted;
        l.outside = t.availableAfter;
        l.validUntil = clock.now() + cfg.staleAfterMs / 2;
        if (t.granted > 0n) wake(l);
        return true;
      })
      .finally(() => {
        l.taking = null;
      });
    l.taking = p;
    return p;
  };

  /**
   * A request's hold out of the lease: what holdAmount allows on the account's whole available
   * balance (this lease's free part plus what is outside every lease), taken from the lease,
   * which grows first (one database write) when its free part is short. At most two writes
   * per request, and only when the lease runs dry; renewals ahead of time keep that rare.
   *
   * A request the account cannot serve now, while holds of requests in flight here could (they
   * give back at their end what they did not spend), waits for them instead of 402: each hold
   * given back wakes it to try again, until it is served, the account is short even counting
   * every hold in flight, or `holdWaitMs` passed. Nothing in flight, or nothing that could
   * cover the minimum: 402 at once.
   */
  const hold = async (input: ReserveInput): Promise<{ lease: Lease; amount: bigint }> => {
    const l = leaseOf(input.principal.accountId);
    l.lastUsed = clock.now();
    l.reserving++;
    let refused = false;
    // Only this request's own lease writes count: waiting on another request's write is not a
    // try (under load many requests wait on one write, and the first of them to be served may
    // take all it brought), so only an account that has nothing more to lease is refused.
    let grows = 0;
    // Set by the first wait for holds in flight; bounds all of this request's waits.
    let deadline: Promise<void> | null = null;
    let timer: NodeJS.Timeout | undefined;
    let waitedOut = false;
    let askedAgain = false;
    let pollMs = ELSEWHERE_POLL_MIN_MS;
    const startDeadline = (): Promise<void> =>
      (deadline ??= new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          waitedOut = true;
          resolve();
        }, cfg.holdWaitMs);
      }));
    try {
      for (;;) {
        const valid = clock.now() < l.validUntil;
        const local = valid ? free(l) : 0n;
        const want = holdAmount(input.charge, local + (valid && !refused ? l.outside : 0n));
        if (want !== null && want <= local) {
          l.held += want;
          l.target = max(l.target, max(want * LEASE_AHEAD, l.held * 2n));
          // Renew before it runs out, off the request's path.
          if (free(l) < l.target / 2n && !l.taking) grow(l, l.target - free(l), 1n).catch(() => {});
          return { lease: l, amount: want };
        }
        if (l.taking) {
          await l.taking.catch(() => {});
          continue;
        }
        if (refused || grows >= MAX_OWN_GROWS) {
          // What the account has is in this lease already: hold it, wait for more, or refuse.
          if (valid && local > 0n && local >= input.charge.minimum) {
            l.held += local;
            return { lease: l, amount: local };
          }
          // Short now; the holds in flight give back what their requests do not spend. When they
          // could cover the minimum (given back whole, with the free part), wait rather than refuse.
          if (l.held > 0n && free(l) + l.held >= input.charge.minimum && cfg.holdWaitMs > 0 && !waitedOut) {
            await freedOrDeadline(l, startDeadline());
            if (closed) throw new HttpError(503, 'service is shutting down');
            continue;
          }
          // Nothing in flight here, but other instances' leases hold the account's balance: their
          // requests end and their idle leases go back (CREDIT_LEASE_IDLE_MS), so ask the
          // account again now and then rather than refuse what another instance could serve.
          if (cfg.holdWaitMs > 0 && !waitedOut && l.elsewhere + (valid ? local : 0n) >= input.charge.minimum) {
            await elsewhereOrDeadline(pollMs, startDeadline());
            if (closed) throw new HttpError(503, 'service is shutting down');
            pollMs = Math.min(pollMs * 2, ELSEWHERE_POLL_MAX_MS);
            refused = false;
            grows = Math.min(grows, MAX_OWN_GROWS - 1);
            continue;
          }
          if (deadline && !askedAgain) {
            // It waited: before 402, ask the account once more (a top-up meanwhile, a lease
            // another instance gave back).
            askedAgain = true;
            refused = false;
            grows = Math.min(grows, MAX_OWN_GROWS - 1);
            continue;
          }
          throw new HttpError(402, OUT_OF_CREDITS);
        }
        const short = (want ?? input.charge.estimate) - local;
        l.target = max(l.target, (want ?? input.charge.minimum) * LEASE_AHEAD);
        grows++;
        refused = !(await grow(l, max(short, 0n) + l.target, max(1n, input.charge.minimum - local)));
      }
    } finally {
      clearTimeout(timer);
      l.reserving--;
    }
  };

  const close = (r: Reservation): Held => {
    if (!open.has(r)) throw new Error(`reservation of request ${r.requestId} was already settled`);
    open.delete(r);
    if (--holding <= 0 && holdsSettled !== null) holdsSettled();
    return r as Held;
  };

  const finish = (r: Held, s: {
    usage: BillableUsage;
    cost: bigint;
    usageSource: 'upstream' | 'estimated' | null;
    status: number;
    servedBy: ServedBy | null | undefined;
    servedModel: string | null | undefined;
    lane: string | null | undefined;
    latencyMs: number | undefined;
  }): Promise<Settlement> => {
    const l = r.lease;
    const charged = min(s.cost, r.amount);
    l.held -= r.amount;
    l.lastUsed = clock.now();
    // The lease row the hold came from: when it was replaced meanwhile, the charge is written
    // without one (the old row's credits went back to the account with the sweep).
    const leaseId = r.leaseId !== null && r.leaseId === l.id ? r.leaseId : null;
    if (leaseId !== null) l.pending += charged;
    // A hold of a replaced row was kept in `db` (grow) only to be taken out here: the new row
    // never had it, so it must not become free.
    else if (r.leaseId !== null) l.db -= r.amount;
    // What the request did not spend is free again: the requests waiting for credits try again.
    wake(l);
    const written = write({
      leaseId,
      charged,
      usage: {
        accountId: r.accountId,
        keyId: r.keyId,
        model: r.model.id,
        servedModel: s.servedModel ?? null,
        providerId: s.servedBy?.providerId ?? null,
        upstreamModel: s.servedBy?.upstreamModel ?? null,
        endpoint: r.endpoint,
        lane: s.lane ?? null,
        inputTokens: s.usage.inputTokens,
        cachedInputTokens: Math.min(s.usage.cachedInputTokens ?? 0, s.usage.inputTokens),
        outputTokens: s.usage.outputTokens ?? 0,
        imageCount: s.usage.images ?? 0,
        cost: s.cost,
        latencyMs: Math.max(0, Math.round(s.latencyMs ?? clock.now() - r.startedAt)),
        status: s.status,
        usageSource: s.usageSource,
        requestId: r.requestId,
      },
    });
    return written.then(
      (done) => {
        // Out of `db` whether or not the row was replaced meanwhile (grow kept the queued
        // charges in `db` for this).
        if (leaseId !== null) {
          l.pending -= charged;
          l.db -= charged;
        }
        return done;
      },
      (err: unknown) => {
        // Not charged: the credits stay in the lease and go back to the account with it (or
        // went back with a swept row, which the lease no longer counts).
        if (leaseId !== null) {
          l.pending -= charged;
          if (leaseId !== l.id) l.db -= charged;
        }
        wake(l);
        opts.logger?.error({ err, requestId: r.requestId }, 'writing a charge failed; the request goes unbilled');
        throw err;
      },
    );
  };

  const giveBack = async (l: Lease): Promise<void> => {
    const amount = free(l);
    if (l.id === null || amount <= 0n) return;
    const id = l.id;
    l.db -= amount;
    try {
      await returnLease(db, id, amount);
    } catch (err) {
      l.db += amount;
      throw err;
    }
  };

  // Leases of idle accounts go back, so another instance (or the admin API) sees the balance.
  const returning = new Set<Promise<void>>();
  const idleTimer = setInterval(() => {
    const now = clock.now();
    for (const l of leases.values()) {
      if (l.held === 0n && l.pending === 0n && l.reserving === 0 && !l.taking && now - l.lastUsed >= cfg.leaseIdleMs) {
        leases.delete(l.accountId);
        const back = giveBack(l).catch((err: unknown) => opts.logger?.warn({ err }, 'could not return an idle credit lease; the stale sweep will'));
        // Off this instance's books already, still in `accounts.reserved` until it commits: a
        // balance read waits for it (written()), or it would count the lease as another's hold.
        returning.add(back);
        void back.finally(() => returning.delete(back));
      }
    }
  }, Math.max(100, Math.min(cfg.leaseIdleMs, cfg.renewEveryMs)));
  idleTimer.unref();

  const renewTimer = setInterval(() => {
    if (leases.size === 0) return;
    const renewedAt = clock.now();
    renewLeases(db, instanceId).then(
      () => {
        for (const l of leases.values()) l.validUntil = renewedAt + cfg.staleAfterMs / 2;
      },
      (err: unknown) => opts.logger?.warn({ err }, 'could not renew credit leases'),
    );
  }, cfg.renewEveryMs);
  renewTimer.unref();

  // Leases of dead instances: at start (all of them when this process is the database's only
  // user), then every half stale period.
  const sweep = (olderThanMs: number) =>
    releaseStaleHolds(db, olderThanMs).then(
      (n) => {
        if (n > 0) opts.logger?.warn({ released: n }, 'released credit leases of instances that stopped');
      },
      (err: unknown) => opts.logger?.warn({ err }, 'could not sweep stale credit leases'),
    );
  void sweep(opts.releaseAllAtStart ? 0 : cfg.staleAfterMs);
  const sweepTimer = setInterval(() => void sweep(cfg.staleAfterMs), cfg.staleAfterMs / 2);
  sweepTimer.unref();

  const unheld = (accountId: number): bigint => {
    const l = leases.get(accountId);
    const f = l ? free(l) : 0n;
    return f > 0n ? f : 0n;
  };

  const written = async (): Promise<void> => {
    await write.flush();
    await Promise.all([...leases.values()].map((l) => (l.taking ?? Promise.resolve()).catch(() => {})));
    await Promise.all(returning);
  };

  return {
    async reserve(input) {
      if (closed) throw new HttpError(503, 'service is shutting down');
      const { lease, amount } = await hold(input);
      const r: Held = {
        accountId: input.principal.accountId,
        keyId: input.principal.keyId,
        model: input.model,
        endpoint: input.endpoint,
        requestId: input.requestId,
        amount,
        maxOutputTokens: capOf(input.charge, amount),
        startedAt: clock.now(),
        lease,
        leaseId: lease.id,
      };
      open.add(r);
      holding++;
      return r;
    },

    async settle(reservation, input) {
      const r = close(reservation);
      const cost = input.cost ?? computeCost(input.pricing ?? r.model.pricing, input.usage);
      return finish(r, {
        usage: input.usage,
        cost,
        usageSource: input.usageSource,
        status: input.status ?? 200,
        servedBy: input.servedBy,
        servedModel: input.servedModel,
        lane: input.lane,
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
        lane: input.lane,
        latencyMs: input.latencyMs,
      });
    },

    waiting: () => waiting,

    unheld,


    written,

    async balance(accountId, read) {
      await written();
      // Kept from here (no await between) until the row is read and the lease counted.
      const l = leases.get(accountId);
      if (l) l.reserving++;
      try {
        const account = await read();
        return { account, available: availableCredits(account, unheld(accountId)) };
      } finally {
        if (l) l.reserving--;
      }
    },

    async close() {
      closed = true;
      // Requests waiting for credits are answered at once (503).
      for (const l of leases.values()) wake(l);
      endShutdownWaits();
      clearInterval(idleTimer);
      clearInterval(renewTimer);
      clearInterval(sweepTimer);
      // A request in flight settles once its client's connection is closed (the server's close
      // did that, or ends its answer); its charge goes with the last write.
      if (holding > 0) {
        let timer!: NodeJS.Timeout;
        const settled = await Promise.race([
          new Promise<true>((r) => (holdsSettled = () => r(true))),
          new Promise<false>((r) => (timer = setTimeout(() => r(false), SHUTDOWN_SETTLE_MS))),
        ]);
        clearTimeout(timer);
        holdsSettled = null;
        if (!settled) opts.logger?.warn({ holding }, 'requests in flight did not settle at shutdown; their holds go back with the leases');
      }
      await write.idle();
      await Promise.all([...leases.values()].map((l) => (l.taking ?? Promise.resolve()).catch(() => {})));
      const results = await Promise.allSettled([...leases.values()].map((l) => giveBack(l)));
      for (const r of results) if (r.status === 'rejected') opts.logger?.warn({ err: r.reason }, 'could not return a credit lease at shutdown; the stale sweep will');
      leases.clear();
    },
  };
}
