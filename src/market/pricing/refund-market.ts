import type { MarketPools } from './market-pools.ts';
import { type MarketSettlement, type SettlementPosition, refundAll } from './settle-market.ts';

/**
 * Cancels a market: every position's stake comes back as a `refund`, no fee, no dust
 * (docs/pool-arithmetic.md). Positions are checked against the pools exactly as in settleMarket.
 */
export function refundMarket<Id>(pools: MarketPools, positions: readonly SettlementPosition<Id>[]): MarketSettlement<Id> {
  return refundAll(pools, positions, null);
}
