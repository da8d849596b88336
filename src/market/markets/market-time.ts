import type { MarketRow } from '../market.tables.ts';

/**
 * When a change to these markets happens: the clock's time, but never before a market's opening
 * or its last trade. Instances' clocks differ by seconds, and the trades list (newest first),
 * `last_trade_at`, `resolved_at` and the price history ("the price after the last trade at or
 * before t", docs/pool-arithmetic.md) read a market's changes in the order of their dates.
 */
export function marketTime(nowMs: number, markets: Iterable<Pick<MarketRow, 'created_at' | 'last_trade_at'>>): Date {
  let at = nowMs;
  for (const m of markets) at = Math.max(at, new Date(m.created_at).getTime(), m.last_trade_at === null ? 0 : new Date(m.last_trade_at).getTime());
  return new Date(at);
}
