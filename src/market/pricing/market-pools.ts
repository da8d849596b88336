/**
 * Outcomes and pools of a parimutuel market (docs/pool-arithmetic.md, "Outcomes and pools").
 * Every amount is a bigint count of micro-USDC units.
 */

/** A side of a market: `yes` and `no` always, `draw` on threeway markets only. */
export type Outcome = 'yes' | 'no' | 'draw';

/** The market types of the market API; only `threeway` has a third outcome. */
export type MarketType = 'yesno' | 'threeway' | 'updown' | 'custom';

/** One value per outcome of a market; `draw` is present exactly on threeway markets. */
export interface OutcomeRecord<T> {
  readonly yes: T;
  readonly no: T;
  readonly draw?: T;
}

/** An outcome's real pool P[o] (sum of stakes on it) and virtual seed V[o] (>= 1, never paid). */
export interface OutcomePool {
  readonly real: bigint;
  readonly seed: bigint;
}

/** The pools of a market, keyed by outcome. Build them with `marketPools` to have them checked. */
export type MarketPools = OutcomeRecord<OutcomePool>;

const BINARY: readonly Outcome[] = Object.freeze(['yes', 'no']);
const THREEWAY: readonly Outcome[] = Object.freeze(['yes', 'no', 'draw']);

/** The outcomes of a market type, in their fixed order (yes, no[, draw]). */
export function marketOutcomes(marketType: MarketType): readonly Outcome[] {
  return marketType === 'threeway' ? THREEWAY : BINARY;
}

/** The outcomes present in a record (yes, no, and draw when it has one), in that order. */
export function recordOutcomes(record: OutcomeRecord<unknown>): readonly Outcome[] {
  return record.draw === undefined ? BINARY : THREEWAY;
}

/** Whether a value is one of the three outcome names (the request spelling, lower case). */
export function isOutcome(value: unknown): value is Outcome {
  return value === 'yes' || value === 'no' || value === 'draw';
}

/**
 * Joins seeds and real pools (defaults: all zero) into checked pools: the same outcomes in both,
 * every seed >= 1 unit, every real pool >= 0. Throws RangeError on bad input (a data bug).
 */
export function marketPools(seeds: OutcomeRecord<bigint>, real?: OutcomeRecord<bigint>): MarketPools {
  const outcomes = recordOutcomes(seeds);
  if (real && recordOutcomes(real).length !== outcomes.length) {
    throw new RangeError('seeds and real pools must have the same outcomes');
  }
  const pool = (o: Outcome): OutcomePool => {
    const seed = seeds[o]!;
    const r = real ? real[o]! : 0n;
    if (seed < 1n) throw new RangeError(`seed of ${o} must be at least 1 unit, got ${seed}`);
    if (r < 0n) throw new RangeError(`real pool of ${o} must not be negative, got ${r}`);
    return Object.freeze({ real: r, seed });
  };
  const yes = pool('yes');
  const no = pool('no');
  return Object.freeze(outcomes.length === 3 ? { yes, no, draw: pool('draw') } : { yes, no });
}

/** T (sum of real pools) and V (sum of seeds) of a market. */
export function poolTotals(pools: MarketPools): { readonly real: bigint; readonly seed: bigint } {
  let real = 0n;
  let seed = 0n;
  for (const o of recordOutcomes(pools)) {
    real += pools[o]!.real;
    seed += pools[o]!.seed;
  }
  return { real, seed };
}

/** Builds an OutcomeRecord with `f(o)` for each given outcome (yes, no[, draw]). */
export function mapOutcomes<T>(outcomes: readonly Outcome[], f: (o: Outcome) => T): OutcomeRecord<T> {
  const yes = f('yes');
  const no = f('no');
  return outcomes.includes('draw') ? { yes, no, draw: f('draw') } : { yes, no };
}
