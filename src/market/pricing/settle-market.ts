import { badRequest } from '../../shared/errors.ts';
import { type MarketPools, type Outcome, poolTotals, recordOutcomes } from './market-pools.ts';

/** The protocol fee on the losing pools, in basis points: 500 = 5%. */
export const FEE_BPS = 500n;

/**
 * One position as settlement sees it: a wallet's stakes (cost_basis) and shares on one outcome of
 * the market, added up over all its trades there. `id` is whatever the caller keys positions by.
 */
export interface SettlementPosition<Id> {
  readonly id: Id;
  readonly outcome: Outcome;
  readonly stake: bigint;
  readonly shares: bigint;
}

/**
 * What one position receives: `settlement` (a winner: stake + its part of D), `refund` (its stake
 * back) or `lost` (nothing: its stake already left the balance at trade time; amount 0).
 */
export interface PositionPayout<Id> {
  readonly id: Id;
  readonly outcome: Outcome;
  readonly kind: 'settlement' | 'refund' | 'lost';
  readonly stake: bigint;
  readonly amount: bigint;
}

/**
 * The money of a settled market. `mode`: `resolved` (winners paid), `no_winners` (resolved but
 * H = 0, all refunded) or `cancelled` (all refunded). Always sum(amount) + fee + dust = total.
 */
export interface MarketSettlement<Id> {
  readonly mode: 'resolved' | 'no_winners' | 'cancelled';
  /** The winning outcome w; null when cancelled. */
  readonly winner: Outcome | null;
  /** T: every stake on the market (its escrow). */
  readonly total: bigint;
  /** W = P[w] (0 when cancelled). */
  readonly winningPool: bigint;
  /** H: shares held on w (0 when cancelled). */
  readonly winningShares: bigint;
  /** L = T - W (0 when everything is refunded). */
  readonly losingPool: bigint;
  /** floor(L * 500 / 10000), to the protocol fee account. */
  readonly fee: bigint;
  /** D = L - fee, shared by the winners. */
  readonly distributed: bigint;
  /** D minus the floored parts paid out, to the protocol fee account. */
  readonly dust: bigint;
  /** Sum of every payout amount (settlements and refunds). */
  readonly paidOut: bigint;
  /** One per position, in the order given. */
  readonly payouts: readonly PositionPayout<Id>[];
}

/**
 * Settles a market resolved to `winner` (docs/pool-arithmetic.md, "Resolution"): each winner gets
 * stake + floor(D * shares / H), losers nothing, fee and dust to the protocol; if H = 0 every
 * stake is refunded, no fee. Positions must be one per (wallet, outcome) and their stakes must add
 * up to the real pools (else Error: the books are broken). Throws 400 `Invalid outcome` if the
 * market has no such outcome.
 */
export function settleMarket<Id>(
  pools: MarketPools,
  positions: readonly SettlementPosition<Id>[],
  winner: Outcome,
): MarketSettlement<Id> {
  if (!pools[winner] || !recordOutcomes(pools).includes(winner)) throw badRequest('Invalid outcome');
  const total = checkPositions(pools, positions);
  const winners = positions.filter((p) => p.outcome === winner);
  const winningShares = winners.reduce((sum, p) => sum + p.shares, 0n);
  if (winningShares === 0n) return refundAll(pools, positions, winner);

  const winningPool = pools[winner]!.real;
  const losingPool = total - winningPool;
  const fee = (losingPool * FEE_BPS) / 10_000n;
  const distributed = losingPool - fee;
  let shared = 0n;
  const payouts = positions.map((p): PositionPayout<Id> => {
    if (p.outcome !== winner) return { id: p.id, outcome: p.outcome, kind: 'lost', stake: p.stake, amount: 0n };
    const part = (distributed * p.shares) / winningShares;
    shared += part;
    return { id: p.id, outcome: p.outcome, kind: 'settlement', stake: p.stake, amount: p.stake + part };
  });
  const dust = distributed - shared;
  return balanced({
    mode: 'resolved',
    winner,
    total,
    winningPool,
    winningShares,
    losingPool,
    fee,
    distributed,
    dust,
    paidOut: winningPool + shared,
    payouts,
  });
}

/** Every stake back as a `refund`, no fee: cancellation (winner null) and resolution with H = 0. */
export function refundAll<Id>(
  pools: MarketPools,
  positions: readonly SettlementPosition<Id>[],
  winner: Outcome | null,
): MarketSettlement<Id> {
  const payouts = positions.map((p): PositionPayout<Id> => ({ id: p.id, outcome: p.outcome, kind: 'refund', stake: p.stake, amount: p.stake }));
  return balanced({
    mode: winner === null ? 'cancelled' : 'no_winners',
    winner,
    total: checkPositions(pools, positions),
    winningPool: winner === null ? 0n : pools[winner]!.real,
    winningShares: 0n,
    losingPool: 0n,
    fee: 0n,
    distributed: 0n,
    dust: 0n,
    paidOut: payouts.reduce((s, p) => s + p.amount, 0n),
    payouts,
  });
}

/**
 * Checks positions against the pools: known outcome, stake and shares >= 0, one position per id,
 * and per outcome the stakes add up to P[o]. Returns T.
 */
export function checkPositions<Id>(pools: MarketPools, positions: readonly SettlementPosition<Id>[]): bigint {
  const outcomes = recordOutcomes(pools);
  const staked = new Map<Outcome, bigint>(outcomes.map((o) => [o, 0n]));
  const seen = new Set<Id>();
  for (const p of positions) {
    if (!outcomes.includes(p.outcome)) throw new Error(`position ${String(p.id)} is on ${p.outcome}, not an outcome of this market`);
    if (p.stake < 0n || p.shares < 0n) throw new Error(`position ${String(p.id)} has a negative stake or shares`);
    if (seen.has(p.id)) throw new Error(`position ${String(p.id)} is listed twice; add up a wallet's trades per outcome first`);
    seen.add(p.id);
    staked.set(p.outcome, staked.get(p.outcome)! + p.stake);
  }
  for (const o of outcomes) {
    if (staked.get(o) !== pools[o]!.real) {
      throw new Error(`stakes on ${o} add up to ${staked.get(o)} units but the pool holds ${pools[o]!.real}`);
    }
  }
  return poolTotals(pools).real;
}

/** Returns the settlement after checking sum(payouts) + fee + dust = T, the invariant. */
function balanced<Id>(s: MarketSettlement<Id>): MarketSettlement<Id> {
  const paid = s.payouts.reduce((sum, p) => sum + p.amount, 0n);
  if (paid !== s.paidOut || paid + s.fee + s.dust !== s.total || s.dust < 0n) {
    throw new Error(`settlement does not balance: ${paid} + ${s.fee} + ${s.dust} != ${s.total}`);
  }
  return s;
}
