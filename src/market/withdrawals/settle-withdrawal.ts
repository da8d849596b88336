import type { Kysely, Transaction } from 'kysely';
import { notFound } from '../../shared/errors.ts';
import type { Database } from '../../storage/schema.ts';
import { EXTERNAL_ACCOUNT, walletAccount } from '../ledger/ledger.accounts.ts';
import { postMovement } from '../ledger/post-movement.ts';
import { inTransaction } from '../market-transaction.ts';
import { unlockFunds } from '../wallets/locked-funds.ts';
import { lockWallet } from '../wallets/wallets.repository.ts';
import { lockWithdrawal, type WithdrawalRow } from './withdrawals.repository.ts';

/**
 * Decides, with the rows locked, whether the transition may happen: true goes ahead, false leaves
 * the row as it is (someone else already moved it), a thrown error aborts.
 */
export type WithdrawalGuard = (row: WithdrawalRow) => boolean;

/**
 * Runs `fn` with the withdrawal's wallet row and then the withdrawal row locked (that order,
 * everywhere). 404 `Withdrawal not found`.
 */
async function withLockedWithdrawal<T>(
  db: Kysely<Database>,
  id: number,
  fn: (trx: Transaction<Database>, row: WithdrawalRow) => Promise<T>,
): Promise<T> {
  return inTransaction(db, async (trx) => {
    const owner = await trx.selectFrom('withdrawals').select('wallet').where('id', '=', id).executeTakeFirst();
    if (!owner) throw notFound('Withdrawal not found');
    await lockWallet(trx, owner.wallet);
    const row = (await lockWithdrawal(trx, id))!;
    return fn(trx, row);
  });
}

export interface CompleteWithdrawalInput {
  readonly txHash: string;
  readonly chain: string;
  /** Replaces the row's note when given. */
  readonly note?: string | null;
  readonly at: Date;
  readonly guard: WithdrawalGuard;
}

/**
 * The money leaves: unlocks the amount and posts the ledger `withdraw` (wallet -> external, with
 * the transfer's tx hash and chain), which lowers the balance and raises total_withdrawn; the row
 * becomes `completed` with its movement. One transaction.
 */
export async function completeWithdrawal(db: Kysely<Database>, id: number, input: CompleteWithdrawalInput): Promise<WithdrawalRow> {
  return withLockedWithdrawal(db, id, async (trx, row) => {
    if (!input.guard(row)) return row;
    // Unlock first: the wallet check (locked <= balance) holds after each statement.
    await unlockFunds(trx, row.wallet, row.amount, input.at);
    const { movement_id } = await postMovement(trx, {
      type: 'withdraw',
      entries: [
        { account: walletAccount(row.wallet), amount: -row.amount },
        { account: EXTERNAL_ACCOUNT, amount: row.amount },
      ],
      wallet: row.wallet,
      tx_hash: input.txHash,
      chain: input.chain,
      note: `withdrawal #${row.id}`,
      at: input.at,
    });
    return trx
      .updateTable('withdrawals')
      .set({
        status: 'completed',
        tx_hash: input.txHash,
        chain: input.chain,
        movement_id,
        ...(input.note === undefined ? {} : { note: input.note }),
        updated_at: input.at,
        completed_at: input.at,
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

export interface ReleaseWithdrawalInput {
  /** rejected: by the operator; failed: the chain refused it, nothing left the hot wallet. */
  readonly state: 'rejected' | 'failed';
  readonly note?: string | null;
  readonly error?: string | null;
  readonly at: Date;
  readonly guard: WithdrawalGuard;
}

/** The withdrawal will not happen: its amount is unlocked (the balance never moved). */
export async function releaseWithdrawal(db: Kysely<Database>, id: number, input: ReleaseWithdrawalInput): Promise<WithdrawalRow> {
  return withLockedWithdrawal(db, id, async (trx, row) => {
    if (!input.guard(row)) return row;
    await unlockFunds(trx, row.wallet, row.amount, input.at);
    return trx
      .updateTable('withdrawals')
      .set({
        status: input.state,
        ...(input.note === undefined ? {} : { note: input.note }),
        ...(input.error === undefined ? {} : { error: input.error }),
        updated_at: input.at,
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}
