import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../shared/clock.ts';
import type { Database } from '../../storage/schema.ts';
import { inTransaction } from '../market-transaction.ts';
import { placeTradesIn, type PlaceTradeInput, type TradeResult } from './place-trades.ts';

export type { PlaceTradeInput, TradeResult } from './place-trades.ts';

/**
 * Places a stake on a market in one transaction: locks the market, then the wallet; checks (in
 * this order) 404 `Market not found`, 400 `Market not active`, `Market has ended`, `Invalid side`,
 * `Minimum trade is 1 USDC`, `Insufficient balance`; moves the stake from the wallet to the
 * market's escrow (ledger `trade`), adds it to the pool, the shares and the wallet's position,
 * and records the trade with the prices after it. The clock dates the trade. A batch of one of
 * placeTradesIn, so a lone trade and a group-committed one are written by the same code.
 */
export async function placeTrade(db: Kysely<Database>, clock: Clock, input: PlaceTradeInput): Promise<TradeResult> {
  return inTransaction(db, (trx) => placeTradeIn(trx, clock, input));
}

/** placeTrade inside the caller's transaction (which owns the retry: run it through inTransaction). */
export async function placeTradeIn(trx: Transaction<Database>, clock: Clock, input: PlaceTradeInput): Promise<TradeResult> {
  const [settled] = await placeTradesIn(trx, clock, [{ ...input, idempotency: null }]);
  if (!settled?.ok) throw settled?.error ?? new Error('placeTradeIn: no result');
  return (settled.answer.body as { data: TradeResult }).data;
}
