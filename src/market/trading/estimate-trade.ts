import type { Kysely } from 'kysely';
import type { Clock } from '../../shared/clock.ts';
import type { Database } from '../../storage/schema.ts';
import { TRADING_COLUMNS } from '../markets/markets.repository.ts';
import { formatUsdc, type Outcome, payoutIfWon } from '../pricing/index.ts';
import { checkTrade } from './check-trade.ts';

export interface EstimateInput {
  readonly marketId: number;
  readonly side: string;
  /** The stake in units (micro-USDC). */
  readonly amount: bigint;
}

/** The `data` of POST /api/pool/estimate (docs/api-decisions.md, "Market API: seventh audit"). */
export interface TradeEstimate {
  readonly market_id: number;
  readonly side: Outcome;
  readonly amount: number;
  /** What the trade would buy now. */
  readonly shares: number;
  /** The average price, amount / shares (the trade's `price`). */
  readonly price: number;
  /** Prices now, before the stake. */
  readonly yes_price: number;
  readonly no_price: number;
  readonly draw_price?: number;
  /** Prices after the stake (the trade's `new_*_price`). */
  readonly new_yes_price: number;
  readonly new_no_price: number;
  readonly new_draw_price?: number;
  /** What this stake would receive if its side won now: stake + share of the losing pools less 5%. */
  readonly payout_if_win: number;
  readonly profit_if_win: number;
}

/**
 * What a stake would buy now, from the trade's own checks and quote (checkTrade, quoteTrade)
 * on an unlocked read of the market; writes nothing. The payout is settlement's arithmetic
 * (payoutIfWon) on the market as it would be after this stake. Balance is not checked: the
 * estimate is public and names no wallet.
 */
export async function estimateTrade(db: Kysely<Database>, clock: Clock, input: EstimateInput): Promise<TradeEstimate> {
  const now = new Date(clock.now());
  const row = await db.selectFrom('markets').select(TRADING_COLUMNS).where('id', '=', input.marketId).executeTakeFirst();
  const { market, quote } = checkTrade(row, input.side, input.amount, now);
  const threeway = market.market_type === 'threeway';
  const held = { yes: market.shares_yes, no: market.shares_no, ...(threeway ? { draw: market.shares_draw } : {}) };
  const win = payoutIfWon(quote, held);
  const before = quote.pricesBefore;
  const after = quote.pricesAfter;
  return {
    market_id: market.id,
    side: quote.outcome,
    amount: formatUsdc(quote.stake),
    shares: formatUsdc(quote.shares),
    price: quote.averagePrice,
    yes_price: before.yes,
    no_price: before.no,
    ...(threeway ? { draw_price: before.draw! } : {}),
    new_yes_price: after.yes,
    new_no_price: after.no,
    ...(threeway ? { new_draw_price: after.draw! } : {}),
    payout_if_win: formatUsdc(win.payout),
    profit_if_win: formatUsdc(win.profit),
  };
}
