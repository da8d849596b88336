import { badRequest } from '../../shared/errors.ts';
import { type MarketPools, type Outcome, marketPools, mapOutcomes, poolTotals, recordOutcomes } from './market-pools.ts';
import { type Prices, poolPrices } from './pool-price.ts';
import { MAX_AMOUNT_UNITS, UNITS_PER_USDC, usdcText } from './usdc-amount.ts';

/** The smallest stake: 1 USDC. */
export const MIN_STAKE_UNITS = UNITS_PER_USDC;

/** The largest stake: the largest client amount, 1,000,000,000 USDC (exact in float64). */
export const MAX_STAKE_UNITS = MAX_AMOUNT_UNITS;

/** What a stake would buy; computing it writes nothing, so the estimate endpoint uses it as is. */
export interface TradeQuote {
  readonly outcome: Outcome;
  /** The stake a, in units: the wallet pays exactly this and the escrow receives it. */
  readonly stake: bigint;
  /** Shares bought, in units: floor(a + O * ln(1 + a / S)); always >= stake. */
  readonly shares: bigint;
  /** The average price paid, stake / shares (the trade's `price`); in (0, 1]. */
  readonly averagePrice: number;
  readonly pricesBefore: Prices;
  /** new_yes_price, new_no_price[, new_draw_price]. */
  readonly pricesAfter: Prices;
  /** The pools with P[outcome] += stake. */
  readonly poolsAfter: MarketPools;
}

/**
 * Quotes a stake of `stake` units on `outcome` (docs/pool-arithmetic.md, "A trade"). Throws 400
 * `Invalid side`, `Minimum trade is 1 USDC`, `Maximum trade is 1000000000 USDC`, or
 * `Trade too large for this market` when T + V + a or the shares would pass 2^53 - 1, where
 * float64 stops counting units exactly.
 */
export function quoteTrade(pools: MarketPools, outcome: Outcome, stake: bigint): TradeQuote {
  const outcomes = recordOutcomes(pools);
  const pool = pools[outcome];
  if (!pool || !outcomes.includes(outcome)) throw badRequest('Invalid side');
  if (stake < MIN_STAKE_UNITS) throw badRequest('Minimum trade is 1 USDC');
  if (stake > MAX_STAKE_UNITS) throw badRequest(`Maximum trade is ${usdcText(MAX_STAKE_UNITS)} USDC`);
  const totals = poolTotals(pools);
  const priced = totals.real + totals.seed; // T + V
  if (priced + stake > MAX_SAFE) throw badRequest('Trade too large for this market');
  const s = pool.real + pool.seed;
  const shares = sharesFor(Number(stake), Number(s), Number(priced - s));
  if (shares > MAX_SAFE) throw badRequest('Trade too large for this market');
  const poolsAfter = marketPools(
    mapOutcomes(outcomes, (o) => pools[o]!.seed),
    mapOutcomes(outcomes, (o) => pools[o]!.real + (o === outcome ? stake : 0n)),
  );
  return {
    outcome,
    stake,
    shares,
    averagePrice: Number(stake) / Number(shares),
    pricesBefore: poolPrices(pools),
    pricesAfter: poolPrices(poolsAfter),
    poolsAfter,
  };
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * floor(a + O * ln(1 + a / S)) in float64, the integral of 1 / price over the stake. log1p keeps
 * ln(1 + x) accurate for the small a / S of a deep pool, where 1 + x would drop digits of x.
 */
function sharesFor(a: number, s: number, o: number): bigint {
  return BigInt(Math.floor(a + o * Math.log1p(a / s)));
}
