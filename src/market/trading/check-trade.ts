import { badRequest, notFound } from '../../shared/errors.ts';
import { poolsOf } from '../markets/market-row-pools.ts';
import type { TradingMarket } from '../markets/markets.repository.ts';
import { isOutcome, quoteTrade, type TradeQuote } from '../pricing/index.ts';

/**
 * The checks a trade and an estimate share, in the documented order: 404 `Market not found`;
 * 400 `Market not active`, `Market has ended` (at or after end_date), `Invalid side`, then the
 * pricing module's `Minimum trade is 1 USDC` and maximum. Returns the quote of the stake on the
 * market as given (locked by a trade, merely read by an estimate). The balance is the trade's
 * own last check.
 */
export function checkTrade<M extends TradingMarket>(market: M | undefined, side: string, stake: bigint, now: Date): { readonly market: M; readonly quote: TradeQuote } {
  if (!market) throw notFound('Market not found');
  if (market.status !== 'active') throw badRequest('Market not active');
  if (now.getTime() >= market.end_date.getTime()) throw badRequest('Market has ended');
  if (!isOutcome(side)) throw badRequest('Invalid side');
  // quoteTrade refuses draw on a two-outcome market (Invalid side) and stakes under 1 USDC.
  return { market, quote: quoteTrade(poolsOf(market), side, stake) };
}
