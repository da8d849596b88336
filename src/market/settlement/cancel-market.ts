import type { Kysely } from 'kysely';
import type { Clock } from '../../shared/clock.ts';
import { badRequest, notFound } from '../../shared/errors.ts';
import type { Database } from '../../storage/schema.ts';
import { inTransaction } from '../market-transaction.ts';
import { marketTime } from '../markets/market-time.ts';
import { isSettled, lockMarket, settledMessage } from '../markets/markets.repository.ts';
import { settleLockedMarket, type SettlementSummary } from './settle.ts';

/**
 * Cancels a market and refunds every stake (no fee), in one transaction with the market row
 * locked. 404 `Market not found`; 400 `Market already resolved` / `Market already cancelled`.
 */
export async function cancelMarket(db: Kysely<Database>, clock: Clock, marketId: number): Promise<SettlementSummary> {
  return inTransaction(db, async (trx) => {
    const market = await lockMarket(trx, marketId);
    if (!market) throw notFound('Market not found');
    if (isSettled(market.status)) throw badRequest(settledMessage(market.status));
    return settleLockedMarket(trx, market, null, marketTime(clock.now(), [market]));
  });
}
