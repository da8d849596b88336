import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database } from '../../storage/schema.ts';
import type { WithdrawalState, WithdrawalsTable } from './withdrawals.tables.ts';

export type WithdrawalRow = Selectable<WithdrawalsTable>;

export const WITHDRAWAL_STATES: readonly WithdrawalState[] = ['pending', 'sending', 'completed', 'rejected', 'failed'];
/** States that hold the amount in wallets.locked. */
export const OPEN_STATES: readonly WithdrawalState[] = ['pending', 'sending'];

export async function findWithdrawal(db: Kysely<Database>, id: number): Promise<WithdrawalRow | undefined> {
  return db.selectFrom('withdrawals').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Locks a withdrawal row until the transaction ends. Order: the wallet's row first (lockWallet),
 * then the withdrawal, everywhere, so two finalizers cannot deadlock.
 */
export async function lockWithdrawal(trx: Transaction<Database>, id: number): Promise<WithdrawalRow | undefined> {
  return trx.selectFrom('withdrawals').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export interface ListWithdrawalsQuery {
  readonly wallet?: string;
  readonly status?: WithdrawalState;
  readonly limit: number;
  /** Only rows with a smaller id (paging backwards). */
  readonly beforeId?: number;
}

/** Newest first. */
export async function listWithdrawals(db: Kysely<Database>, q: ListWithdrawalsQuery): Promise<WithdrawalRow[]> {
  let query = db.selectFrom('withdrawals').selectAll();
  if (q.wallet) query = query.where('wallet', '=', q.wallet);
  if (q.status) query = query.where('status', '=', q.status);
  if (q.beforeId !== undefined) query = query.where('id', '<', q.beforeId);
  return query.orderBy('id', 'desc').limit(q.limit).execute();
}

/** Sent withdrawals waiting for their receipt (optionally of one wallet), oldest first. */
export async function listAwaitingReceipt(db: Kysely<Database>, opts: { wallet?: string; limit: number }): Promise<WithdrawalRow[]> {
  let q = db.selectFrom('withdrawals').selectAll().where('status', '=', 'sending').where('tx_hash', 'is not', null);
  if (opts.wallet) q = q.where('wallet', '=', opts.wallet);
  return q.orderBy('id').limit(opts.limit).execute();
}

/** Withdrawals queued for the service's sender (CHAIN=evm rows carry their chain), oldest first. */
export async function listQueuedForSending(db: Kysely<Database>, chain: string, limit: number): Promise<WithdrawalRow[]> {
  return db
    .selectFrom('withdrawals')
    .selectAll()
    .where('status', '=', 'pending')
    .where('chain', '=', chain)
    .orderBy('id')
    .limit(limit)
    .execute();
}
