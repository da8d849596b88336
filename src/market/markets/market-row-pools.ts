import type { MarketRow } from '../market.tables.ts';
import { type MarketPools, type Outcome, type Prices, mapOutcomes, marketOutcomes, marketPools, poolPrices } from '../pricing/index.ts';

/**
 * A market row's outcomes and pools: the one place where the row's `seed_*`, `pool_*` and
 * `shares_*` columns become the pricing module's pools (docs/pool-arithmetic.md).
 */

/** The columns that hold a market's pools (the type says which outcomes it has). */
export const POOL_COLUMNS = ['market_type', 'seed_yes', 'seed_no', 'seed_draw', 'pool_yes', 'pool_no', 'pool_draw'] as const;
export type PoolColumns = Pick<MarketRow, (typeof POOL_COLUMNS)[number]>;

/** The outcomes a market can trade and resolve to (yes, no, and draw on threeway). */
export const outcomesOf = (m: Pick<MarketRow, 'market_type'>): readonly Outcome[] => marketOutcomes(m.market_type);

const SEED = { yes: 'seed_yes', no: 'seed_no', draw: 'seed_draw' } as const;
const POOL = { yes: 'pool_yes', no: 'pool_no', draw: 'pool_draw' } as const;
const SHARES = { yes: 'shares_yes', no: 'shares_no', draw: 'shares_draw' } as const;
export const poolColumn = (o: Outcome) => POOL[o];
export const sharesColumn = (o: Outcome) => SHARES[o];

/** The checked pools (real and seed) of a market row. */
export function poolsOf(m: PoolColumns): MarketPools {
  const outcomes = outcomesOf(m);
  return marketPools(
    mapOutcomes(outcomes, (o) => m[SEED[o]]),
    mapOutcomes(outcomes, (o) => m[POOL[o]]),
  );
}

/** The prices before any trade: seeds alone. */
export function openingPricesOf(m: PoolColumns): Prices {
  return poolPrices(marketPools(mapOutcomes(outcomesOf(m), (o) => m[SEED[o]])));
}
