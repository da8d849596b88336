import type { Kysely } from 'kysely';
import type { Clock } from '../../shared/clock.ts';
import { badRequest, notFound } from '../../shared/errors.ts';
import type { Database } from '../../storage/schema.ts';
import { inTransaction } from '../market-transaction.ts';
import { outcomesOf } from '../markets/market-row-pools.ts';
import { marketTime } from '../markets/market-time.ts';
import { isSettled, lockMarket, settledMessage } from '../markets/markets.repository.ts';
import { settleLockedMarket, type SettlementSummary } from './settle.ts';

/**
 * Resolves a market to `outcome` and pays it out, in one transaction with the market row locked:
 * a second resolve (or a cancel) waits for the first and is then refused, so a market is paid
 * exactly once; a trade waiting on the same lock then finds the market resolved.
 * 404 `Market not found`; 400 `Market already resolved` / `Market already cancelled`;
 * 400 `invalid outcome: must be one of yes, no[, draw]`.
 */
export async function resolveMarket(db: Kysely<Database>, clock: Clock, marketId: number, outcome: string): Promise<SettlementSummary> {
  return inTransaction(db, async (trx) => {
    const market = await lockMarket(trx, marketId);
    if (!market) throw notFound('Market not found');
    if (isSettled(market.status)) throw badRequest(settledMessage(market.status));
    const outcomes = outcomesOf(market);
    const winner = outcomes.find((o) => o === outcome);
    if (!winner) throw badRequest(`invalid outcome: must be one of ${outcomes.join(', ')}`);
    return settleLockedMarket(trx, market, winner, marketTime(clock.now(), [market]));
  });
}
