import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database } from '../../storage/schema.ts';
import type { WalletsTable } from '../market.tables.ts';

export type WalletRow = Selectable<WalletsTable>;

/** Addresses passed here are already normalized (see normalizeWalletAddress). */
export async function findWallet(db: Kysely<Database>, address: string): Promise<WalletRow | undefined> {
  return db.selectFrom('wallets').selectAll().where('address', '=', address).executeTakeFirst();
}

/** The wallet row, created empty if it did not exist (safe when two callers race). */
export async function getOrCreateWallet(db: Kysely<Database>, address: string, at: Date = new Date()): Promise<WalletRow> {
  await db
    .insertInto('wallets')
    .values({ address, balance: 0n, locked: 0n, total_deposited: 0n, total_withdrawn: 0n, created_at: at, updated_at: at })
    .onConflict((oc) => oc.column('address').doNothing())
    .execute();
  return db.selectFrom('wallets').selectAll().where('address', '=', address).executeTakeFirstOrThrow();
}

/**
 * Locks a wallet row until the transaction ends. In a transaction that also locks a market, the
 * market is locked first (placeTrade and settlement share this order, so they cannot deadlock).
 */
export async function lockWallet(trx: Transaction<Database>, address: string): Promise<WalletRow | undefined> {
  return trx.selectFrom('wallets').selectAll().where('address', '=', address).forUpdate().executeTakeFirst();
}

/** Balance minus what pending operations hold. */
export const availableOf = (w: Pick<WalletRow, 'balance' | 'locked'>): bigint => w.balance - w.locked;
