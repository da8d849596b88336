import { type MarketPools, type Outcome, type OutcomeRecord, mapOutcomes, poolTotals, recordOutcomes } from './market-pools.ts';

/** Display prices of a market's outcomes (JSON numbers, summing to 1 within float rounding). */
export type Prices = OutcomeRecord<number>;

/** An exact price as a fraction of units: (P[o] + V[o]) / (T + V). */
export interface PriceFraction {
  readonly numerator: bigint;
  readonly denominator: bigint;
}

/** The exact price of one outcome: (P[o] + V[o]) / (T + V). */
export function priceFraction(pools: MarketPools, outcome: Outcome): PriceFraction {
  const pool = pools[outcome];
  if (!pool) throw new RangeError(`market has no outcome ${outcome}`);
  const { real, seed } = poolTotals(pools);
  return { numerator: pool.real + pool.seed, denominator: real + seed };
}

/** The display price of one outcome, as a float64 number in (0, 1). */
export function poolPrice(pools: MarketPools, outcome: Outcome): number {
  return fractionToNumber(priceFraction(pools, outcome));
}

/** The display prices of every outcome of a market (yes_price, no_price[, draw_price]). */
export function poolPrices(pools: MarketPools): Prices {
  return mapOutcomes(recordOutcomes(pools), (o) => poolPrice(pools, o));
}

/** The float64 of a fraction: the correctly rounded quotient while both parts are below 2^53. */
function fractionToNumber(f: PriceFraction): number {
  let { numerator: n, denominator: d } = f;
  // Number(bigint) would round each part separately; beyond 2^53 halve both (display only).
  const limit = BigInt(Number.MAX_SAFE_INTEGER);
  while (n > limit || d > limit) {
    n >>= 1n;
    d >>= 1n;
  }
  return Number(n) / Number(d);
}
