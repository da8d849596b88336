import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../storage/schema.ts';
import type { MarketRow, MarketStatus } from '../market.tables.ts';
import { POOL_COLUMNS } from './market-row-pools.ts';
import type { WalletRow } from '../wallets/wallets.repository.ts';

/** The columns a trade or an estimate reads: state, end, type, seeds, pools and shares. */
export const TRADING_COLUMNS = [
  'id',
  'status',
  'end_date',
  ...POOL_COLUMNS,
  'shares_yes',
  'shares_no',
  'shares_draw',
] as const;
export type TradingMarket = Pick<MarketRow, (typeof TRADING_COLUMNS)[number]>;

export async function findMarket(db: Kysely<Database>, id: number): Promise<MarketRow | undefined> {
  return db.selectFrom('markets').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Locks a market row until the transaction ends. Every transaction that changes a market's money
 * locks the market before any wallet, so trades and settlement queue in one order.
 */
export async function lockMarket(trx: Transaction<Database>, id: number): Promise<MarketRow | undefined> {
  return trx.selectFrom('markets').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/**
 * Locks a market row and then one wallet row, in that order (the order every money transaction
 * uses), in one round trip: the wallet's lateral subquery runs only once the market row is
 * locked, and not at all when there is no such market. The wallet is undefined when it has no
 * row.
 */
export async function lockMarketThenWallet(
  trx: Transaction<Database>,
  marketId: number,
  wallet: string,
): Promise<{ market: TradingMarket; wallet: Pick<WalletRow, 'balance' | 'locked'> | undefined } | undefined> {
  // Only the columns a trade reads: every column returned is parsed on each trade.
  const row = await trx
    .selectFrom((db) => db.selectFrom('markets').select(TRADING_COLUMNS).where('id', '=', marketId).forUpdate().as('m'))
    .leftJoinLateral(
      (db) => db.selectFrom('wallets').select(['address', 'balance', 'locked']).where('address', '=', wallet).forUpdate().as('w'),
      (join) => join.onTrue(),
    )
    .selectAll('m')
    .select(['w.address as wallet_address', 'w.balance as wallet_balance', 'w.locked as wallet_locked'])
    .executeTakeFirst();
  if (!row) return undefined;
  const { wallet_address, wallet_balance, wallet_locked, ...market } = row;
  return {
    market,
    wallet: wallet_address === null ? undefined : { balance: wallet_balance!, locked: wallet_locked! },
  };
}

export const isSettled = (status: MarketStatus): boolean => status === 'resolved' || status === 'cancelled';

/** The 400 for an operation on a market that was already settled. */
export function settledMessage(status: MarketStatus): string {
  return status === 'resolved' ? 'Market already resolved' : 'Market already cancelled';
}
