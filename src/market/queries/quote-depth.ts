import { type MarketPools, type Outcome, MIN_STAKE_UNITS, poolTotals } from '../pricing/index.ts';

/** What a price record shows as a pool market's quote (docs/decisions-market-reads.md). */
export interface QuoteDepth {
  /** The outcome's price after the minimum stake (1 USDC) goes to the other outcomes. */
  readonly bestBid: number;
  /** The outcome's price after the minimum stake goes to this outcome. */
  readonly bestAsk: number;
  /** bestAsk - bestBid = m / (T + V + m): how far one minimum trade moves the price. */
  readonly spread: number;
}

/**
 * A pool has no order book; its quote is what the smallest trade does to the price. With
 * S = P[o] + V[o], N = T + V and m the minimum stake: bid = S / (N + m), ask = (S + m) / (N + m),
 * so bid <= price <= ask, and the spread m / (N + m) narrows as the pools deepen.
 */
export function quoteDepth(pools: MarketPools, outcome: Outcome): QuoteDepth {
  const pool = pools[outcome];
  if (!pool) throw new RangeError(`market has no outcome ${outcome}`);
  const { real, seed } = poolTotals(pools);
  const s = Number(pool.real + pool.seed);
  const m = Number(MIN_STAKE_UNITS);
  const n = Number(real + seed) + m;
  return { bestBid: s / n, bestAsk: (s + m) / n, spread: m / n };
}
