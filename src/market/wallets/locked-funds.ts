import { sql, type Transaction } from 'kysely';
import type { Database } from '../../storage/schema.ts';

/**
 * `wallets.locked` is money still in the balance but promised to a pending operation (an open
 * withdrawal); trades and withdrawals spend only `balance - locked`. The caller holds the wallet's
 * row lock (lockWallet) and has checked the amount: the table's check (0 <= locked <= balance)
 * aborts the transaction otherwise.
 */
export async function lockFunds(trx: Transaction<Database>, address: string, amount: bigint, at: Date): Promise<void> {
  await changeLocked(trx, address, amount, at);
}

/** Gives back what lockFunds held; before a debit of the same money, unlock first. */
export async function unlockFunds(trx: Transaction<Database>, address: string, amount: bigint, at: Date): Promise<void> {
  await changeLocked(trx, address, -amount, at);
}

async function changeLocked(trx: Transaction<Database>, address: string, delta: bigint, at: Date): Promise<void> {
  if (delta === 0n) throw new Error('changeLocked: zero amount');
  const res = await trx
    .updateTable('wallets')
    .set({ locked: sql<bigint>`locked + ${delta}`, updated_at: at })
    .where('address', '=', address)
    .executeTakeFirst();
  if (res.numUpdatedRows !== 1n) throw new Error(`changeLocked: no wallet ${address}`);
}
